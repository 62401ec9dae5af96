import { createVitestConfig } from '@toolwire/vitest-config';

export default createVitestConfig({
  test: {
    // Tests start real gateways, MCP servers, Redis and Chromium; two cores are shared.
    maxWorkers: 2,
    testTimeout: 60_000,
  },
});
