import { defineConfig } from 'tsup';

export default defineConfig({
  // bin/toolwire.cjs checks the Node version, then loads this.
  entry: ['src/main.ts'],
  format: ['esm'],
  clean: true,
  target: 'node22',
  banner: { js: '#!/usr/bin/env node' },
});
