import { describe, expect, it } from 'vitest';
import { runConformance } from '../scripts/run-conformance.js';

// A quick subset of the official client scenarios, one per area; `pnpm run conformance` runs
// everything both revisions require.
describe('the registry as an MCP client (official conformance runner)', () => {
  it.each([
    ['initialize', []],
    ['tools_call', []],
    ['http-invalid-tool-headers', ['--spec-version', '2026-07-28']],
    ['json-schema-2020-12-preservation', []],
    // OAuth: discovery, dynamic registration, PKCE and the token exchange via the headless handler.
    ['auth/metadata-default', []],
  ])(
    'passes %s',
    async (scenario, extra) => {
      const run = await runConformance(['--scenario', scenario, ...extra]);
      expect(run.output).toContain('OVERALL: PASSED');
      expect(run.status).toBe(0);
      expect(run.failed).toBe(0);
      expect(run.passed).toBeGreaterThan(0);
    },
    90_000,
  );
});
