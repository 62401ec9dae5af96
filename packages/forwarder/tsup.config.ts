import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', http: 'src/http.ts', redis: 'src/redis/index.ts' },
  format: ['esm', 'cjs'],
  // One copy of the modules the entries share in the CommonJS build too.
  splitting: true,
  dts: true,
  clean: true,
  target: 'node22',
});
