import { createVitestConfig } from '@toolwire/vitest-config';

export default createVitestConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    // Tests start real gateways, MCP servers, Redis and Chromium; two cores are shared.
    maxWorkers: 2,
    testTimeout: 60_000,
  },
});
