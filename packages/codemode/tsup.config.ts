import { defineConfig } from 'tsup';

export default defineConfig({
  // The type-check worker is loaded by path at run time (see IsolatedTypeChecker). `./settings`
  // resolves the codeMode config without loading TypeScript (the CLI decides its mode with it).
  entry: ['src/index.ts', 'src/type-check-worker.ts', 'src/code-mode-settings.ts'],
  format: ['esm'],
  dts: { entry: ['src/index.ts', 'src/code-mode-settings.ts'] },
  clean: true,
  sourcemap: true,
  target: 'node22',
});
