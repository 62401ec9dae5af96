import { defineConfig } from 'tsup';

// An optional native addon: never bundled, loaded (or not) where the package is installed.
const external = ['isolated-vm'];

export default defineConfig([
  {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    // `import.meta.url` finds the worker files below from the CommonJS build too.
    shims: true,
    dts: true,
    // The other build writes the worker files into the same folder at the same time.
    clean: ['!quickjs-worker.js', '!isolated-vm-runner.js'],
    target: 'node22',
    external,
  },
  {
    // The worker and the child-process runner are loaded by path at run time (see siblingEntry),
    // from either build; they are ES modules (the worker awaits at the top level).
    entry: ['src/quickjs-worker.ts', 'src/isolated-vm-runner.ts'],
    format: ['esm'],
    // No shared chunk: the first build's clean would not know its name.
    splitting: false,
    target: 'node22',
    external,
  },
]);
