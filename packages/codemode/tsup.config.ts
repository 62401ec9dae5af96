import { defineConfig } from 'tsup';

export default defineConfig({
  // The type-check worker is loaded by path at run time (see IsolatedTypeChecker).
  entry: ['src/index.ts', 'src/type-check-worker.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  sourcemap: true,
  target: 'node22',
});
