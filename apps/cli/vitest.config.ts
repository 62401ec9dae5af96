import { createVitestConfig } from '@toolwire/vitest-config';

export default createVitestConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    // Every test spawns the built binary and real MCP servers; two cores are shared.
    maxWorkers: 2,
    // CI runs three turbo tasks beside this suite; a binary that starts MCP servers can take
    // well over the default 20 s there without anything being wrong.
    testTimeout: 60_000,
  },
});
