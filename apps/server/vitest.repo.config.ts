// Tests that drive the whole repository (`npm start` installs and builds it). The root `test:all`
// runs them after turbo has finished every package, never beside a build.
import { createVitestConfig, resultsDirectory } from '@toolwire/vitest-config';

export default createVitestConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    include: ['test/npm-start.test.ts'],
    testTimeout: 180_000,
    reporters: [
      'default',
      ['json', { outputFile: `${resultsDirectory}/vitest-results-repo.json` }],
    ],
  },
});
