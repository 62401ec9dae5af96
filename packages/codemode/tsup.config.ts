import { defineConfig } from 'tsup';

export default defineConfig({
  // The type-check worker is loaded by path at run time (see CheckerWorker) and loads
  // `./type-checker` (the only module that imports `typescript`, an optional peer dependency).
  // `./settings` resolves the codeMode config without loading code mode itself.
  entry: [
    'src/index.ts',
    'src/type-check-worker.ts',
    'src/type-checker.ts',
    'src/code-mode-settings.ts',
  ],
  format: ['esm'],
  dts: { entry: ['src/index.ts', 'src/code-mode-settings.ts', 'src/type-checker.ts'] },
  clean: true,
  sourcemap: true,
  target: 'node22',
});
