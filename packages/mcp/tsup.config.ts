import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/node.ts'],
  format: ['esm', 'cjs'],
  // One copy of the modules the entries share in the CommonJS build too (tsup splits only ESM by
  // default): `instanceof` and module state must not differ between entries.
  splitting: true,
  dts: true,
  clean: true,
  target: 'node22',
});
