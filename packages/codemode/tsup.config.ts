import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // `./settings` resolves the codeMode config without loading code mode itself; `./type-checker`
    // is the one module that imports `typescript` (an optional peer dependency).
    entry: ['src/index.ts', 'src/code-mode-settings.ts', 'src/type-checker.ts'],
    format: ['esm', 'cjs'],
    // One copy of the modules the entries share in the CommonJS build too (tsup splits only ESM by
    // default); `import.meta.url` finds the worker below from the CommonJS build too.
    splitting: true,
    shims: true,
    dts: true,
    // The other build writes the worker into the same folder at the same time.
    clean: ['!type-check-worker.js'],
    target: 'node22',
  },
  {
    // The type-check worker is loaded by path at run time (see CheckerWorker), from either build;
    // it loads the ES module build of `./type-checker` above only when it can (see the worker).
    entry: ['src/type-check-worker.ts'],
    format: ['esm'],
    target: 'node22',
  },
]);
