// Shared Vitest settings. Workspace packages resolve to their TypeScript sources through the
// `@toolwire/source` export condition, so tests never need a build of their dependencies.
import { defineConfig } from 'vitest/config';

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
      ...(overrides.test ?? {}),
    },
  });
}

export default createVitestConfig();
