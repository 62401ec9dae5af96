// `pnpm --filter @toolwire/forwarder conformance`: runs the official MCP conformance suite's server
// scenarios against the forwarder's passthrough route (/servers/conf/mcp) in front of our fixture
// upstream (test/fixtures/conformance-upstream.ts), for both protocol revisions:
//   2025-11-25 with @modelcontextprotocol/conformance 0.1.16 (its active suite), and
//   2026-07-28 with 0.2.0-alpha.12 `--requirements 2026-07-28`.
// `--aggregated` also runs them against /mcp, where names are namespaced (tool and prompt scenarios
// that call fixed names are expected to fail there). Prints each run's totals.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createForwarder } from '../src/index.js';
import { startConformanceUpstream } from '../test/fixtures/conformance-upstream.js';
import { createHttpToolSource } from '../test/helpers/http-tool-source.js';

const require = createRequire(import.meta.url);
const cli = (pkg: string) =>
  path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js');

function run(
  label: string,
  args: string[],
): Promise<{ label: string; total: string; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', () => {
      const totals = [
        ...output.matchAll(/Total: (\d+) passed, (\d+) failed(?:, (\d+) warnings?)?/g),
      ].at(-1);
      resolve({ label, total: totals ? totals[0] : 'no totals printed', output });
    });
  });
}

const upstream = await startConformanceUpstream();
const source = createHttpToolSource({ conf: upstream.url });
await source.start();
const forwarder = createForwarder({
  source,
  config: { mcpServers: { conf: { url: upstream.url } } },
  audit: false,
});
const { url } = await forwarder.listen();
const results = mkdtempSync(path.join(tmpdir(), 'toolwire-conformance-'));
const verbose = process.argv.includes('--verbose');
const targets: Array<[string, string]> = [['passthrough', `${url}/servers/conf/mcp`]];
if (process.argv.includes('--aggregated')) targets.push(['aggregated', `${url}/mcp`]);

try {
  for (const [name, target] of targets) {
    const legacy = await run(`${name} 2025-11-25 (conformance 0.1.16, active suite)`, [
      cli('conformance-legacy'),
      'server',
      '--url',
      target,
      '-o',
      path.join(results, `${name}-2025`),
    ]);
    const modern = await run(
      `${name} 2026-07-28 (conformance 0.2.0-alpha.12, --requirements 2026-07-28)`,
      [
        cli('@modelcontextprotocol/conformance'),
        'server',
        '--url',
        target,
        '--requirements',
        '2026-07-28',
        '-o',
        path.join(results, `${name}-2026`),
      ],
    );
    for (const r of [legacy, modern]) {
      if (verbose) console.log(r.output);
      else {
        const failed = r.output.split('\n').filter((line) => line.startsWith('✗'));
        console.log(`${r.label}: ${r.total}`);
        for (const line of failed) console.log(`    ${line}`);
      }
    }
  }
  console.log(`checks.json per scenario under ${results}`);
} finally {
  await forwarder.close();
  await source.close();
  await upstream.close();
}
