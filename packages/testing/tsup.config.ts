import { defineConfig } from 'tsup';

export default defineConfig({
  entry: [
    'src/providers/index.ts',
    'src/mcp/index.ts',
    'src/memory/index.ts',
    'src/tool-source/index.ts',
    'src/module-graph/index.ts',
    'src/random/index.ts',
  ],
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node22',
});
