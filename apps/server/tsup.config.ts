import { defineConfig } from 'tsup';
import { buildDashboard } from './scripts/build-dashboard.js';

export default defineConfig([
  {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    // `import.meta.url` resolves the bundled MCP servers from the CommonJS build too.
    shims: true,
    dts: true,
    // The other build writes the binary's entry and the dashboard into the same folder at the
    // same time.
    clean: ['!main.js', '!dashboard/**'],
    target: 'node22',
  },
  {
    // The binary's entry (bin/toolwire-server.cjs checks the Node version, then loads it): an ES
    // module, it awaits at the top level.
    entry: ['src/main.ts'],
    format: ['esm'],
    splitting: false,
    target: 'node22',
    onSuccess: () => buildDashboard('dist/dashboard'),
  },
]);
