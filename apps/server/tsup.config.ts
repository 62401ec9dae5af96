import { defineConfig } from 'tsup';
import { buildDashboard } from './scripts/build-dashboard.js';

export default defineConfig({
  entry: ['src/index.ts', 'src/main.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  sourcemap: true,
  target: 'node22',
  onSuccess: () => buildDashboard('dist/dashboard'),
});
