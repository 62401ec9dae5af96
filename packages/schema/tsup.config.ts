import { defineConfig } from 'tsup';

export default defineConfig({
  // The two JSON Schema backends are entries of their own: `#compile-schema` (package.json
  // `imports`) picks one where the package is used, so it stays an import in the output.
  entry: ['src/index.ts', 'src/compile-schema-ajv.ts', 'src/compile-schema-cfworker.ts'],
  format: ['esm', 'cjs'],
  // One copy of the modules the entries share in the CommonJS build too (tsup splits only ESM by
  // default): `instanceof` and module state must not differ between entries.
  splitting: true,
  dts: { entry: 'src/index.ts' },
  external: ['#compile-schema'],
  clean: true,
  target: 'node22',
});
