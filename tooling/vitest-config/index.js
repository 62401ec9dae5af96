// Shared Vitest settings. Workspace packages resolve to their TypeScript sources through the
// `@toolwire/source` export condition, so tests never need a build of their dependencies.
// Besides the console report, every run writes a JSON report that `npm test` sums into one
// closing line (tooling/bootstrap/test-summary.mjs).
import { defineConfig } from 'vitest/config';

export const resultsDirectory = 'node_modules/.cache/toolwire';
export const resultsFile = `${resultsDirectory}/vitest-results.json`;

export function createVitestConfig(overrides = {}) {
  return defineConfig({
    resolve: { conditions: ['@toolwire/source'] },
    ssr: { resolve: { conditions: ['@toolwire/source'] } },
    ...overrides,
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: 20_000,
      hookTimeout: 30_000,
      pool: 'forks',
      reporters: ['default', ['json', { outputFile: resultsFile }]],
      ...(overrides.test ?? {}),
    },
  });
}

export default createVitestConfig();
