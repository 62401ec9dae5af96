import { createVitestConfig } from '@toolwire/vitest-config';

export default createVitestConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    // Every test spawns the built binary and real MCP servers; two cores are shared.
    maxWorkers: 2,
  },
});
