// Runs the official MCP conformance client scenarios against the registry's client, for protocol
// revisions 2025-11-25 and 2026-07-28, with conformance-baseline.yml listing the expected failures
// (the auth extensions the registry's OAuth client does not offer, each with its reason).
//
//   pnpm --filter @toolwire/mcp run conformance                          # both revisions
//   pnpm --filter @toolwire/mcp run conformance -- --requirements 2026-07-28
//   pnpm --filter @toolwire/mcp run conformance -- --scenario tools_call
//
// Exit code 0 when every scenario passes or is an expected failure.
import { runConformance } from './run-conformance.js';

const args = process.argv.slice(2).filter((arg) => arg !== '--');
const runs =
  args.length > 0
    ? [args]
    : [
        ['--requirements', '2025-11-25'],
        ['--requirements', '2026-07-28'],
      ];
let exitCode = 0;
const summary: string[] = [];
for (const selection of runs) {
  const run = await runConformance(selection, { baseline: !selection.includes('--scenario') });
  const interesting = run.output
    .split('\n')
    .filter((line) => /^\s*(✓|✗|~)|Total:|Passed:|OVERALL|baseline/i.test(line));
  console.log(
    `\n== conformance client ${selection.join(' ')}${run.isolated ? ' (private network namespace)' : ''}`,
  );
  console.log(interesting.join('\n'));
  summary.push(
    `${selection.join(' ')}: ${run.passed} checks passed, ${run.failed} failed, ${run.warnings} warnings (exit ${run.status})`,
  );
  if (run.status !== 0) exitCode = run.status;
}
console.log(`\nConformance (client) summary:\n${summary.map((line) => `  ${line}`).join('\n')}`);
process.exit(exitCode);
