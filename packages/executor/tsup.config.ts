import { defineConfig } from 'tsup';

export default defineConfig({
  // The worker and the child-process runner are loaded by path at run time (see siblingEntry).
  entry: ['src/index.ts', 'src/quickjs-worker.ts', 'src/isolated-vm-runner.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  sourcemap: true,
  target: 'node22',
  // An optional native addon: never bundled, loaded (or not) where the package is installed.
  external: ['isolated-vm'],
});
