import { configDefaults } from 'vitest/config';
import { createVitestConfig } from '@toolwire/vitest-config';

export default createVitestConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    // Tests start real gateways, MCP servers, Redis and Chromium; two cores are shared.
    maxWorkers: 2,
    testTimeout: 60_000,
    // `npm start` installs and builds the whole repository: it must not run while turbo is still
    // building or testing other packages, so it has its own run (`test:repo`) after turbo's.
    exclude: [...configDefaults.exclude, 'test/npm-start.test.ts'],
  },
});
