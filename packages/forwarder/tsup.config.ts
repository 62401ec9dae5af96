import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', http: 'src/http.ts', redis: 'src/redis/index.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node22',
});
