// pnpm bench: (1) cold discovery of the three npm reference servers, in parallel, through the
// registry, against the sum of connecting to each alone; (2) per-call routing overhead:
// registry.callTool against the raw SDK client calling the same server (stdio and HTTP).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startFixtureHttpServer } from '@toolwire/testing/mcp';
import { Bench } from 'tinybench';
import { createRegistry, type McpServerConfig } from '../src/node.js';
import { benchRows } from '@toolwire/bench-kit';

const bin = (name: string) =>
  fileURLToPath(
    new URL(`../node_modules/@modelcontextprotocol/${name}/dist/index.js`, import.meta.url),
  );
const dir = mkdtempSync(join(tmpdir(), 'toolwire-bench-'));
const quiet = { warn: () => undefined };
const servers: Record<string, McpServerConfig> = {
  everything: { command: process.execPath, args: [bin('server-everything'), 'stdio'] },
  fs: { command: process.execPath, args: [bin('server-filesystem'), dir] },
  memory: {
    command: process.execPath,
    args: [bin('server-memory')],
    env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
  },
};

function stats(samples: number[]): { median: number; min: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]! };
}

async function discover(config: Record<string, McpServerConfig>): Promise<number> {
  const registry = createRegistry({
    config: { mcpServers: config },
    logger: quiet,
    refreshIntervalMs: 0,
  });
  const started = performance.now();
  await registry.start();
  const elapsed = performance.now() - started;
  const down = registry.servers().filter((s) => s.status !== 'ok');
  if (down.length > 0) throw new Error(`not connected: ${JSON.stringify(down)}`);
  await registry.close();
  return elapsed;
}

const RUNS = 5;
console.log(`\n@toolwire/mcp benchmarks (Node ${process.versions.node}, ${process.arch})\n`);
console.log('1. Cold discovery (spawn + handshake + tools/list), median of 5 runs');
const parallel: number[] = [];
const alone: Record<string, number[]> = { everything: [], fs: [], memory: [] };
for (let run = 0; run < RUNS; run++) {
  parallel.push(await discover(servers));
  for (const name of Object.keys(servers))
    alone[name]!.push(await discover({ [name]: servers[name]! }));
}
const sumOfAlone = Object.values(alone).reduce((sum, samples) => sum + stats(samples).median, 0);
for (const [name, samples] of Object.entries(alone)) {
  console.log(
    `   ${`${name} alone`.padEnd(34)} ${stats(samples).median.toFixed(0).padStart(6)} ms (min ${stats(samples).min.toFixed(0)})`,
  );
}
const p = stats(parallel);
console.log(
  `   ${'all three in parallel (registry)'.padEnd(34)} ${p.median.toFixed(0).padStart(6)} ms (min ${p.min.toFixed(0)})`,
);
console.log(
  `   parallel / sum of each alone: ${(p.median / sumOfAlone).toFixed(2)} (sum ${sumOfAlone.toFixed(0)} ms)\n`,
);

console.log('2. Per-call routing overhead (sequential calls on one connection)');
const http = await startFixtureHttpServer();
const rawStdio = new Client({ name: 'bench-raw', version: '1.0.0' });
await rawStdio.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [bin('server-everything'), 'stdio'],
    stderr: 'ignore',
  }),
);
const rawHttp = new Client(
  { name: 'bench-raw', version: '1.0.0' },
  { versionNegotiation: { mode: 'auto' } },
);
await rawHttp.connect(new StreamableHTTPClientTransport(new URL(http.url)));
// Hand the raw client the tool definition too (as the registry does), so neither side re-lists
// tools per call for header mirroring: the comparison is routing, not caching.
const echoDefinition = (await rawHttp.listTools()).tools.find((tool) => tool.name === 'echo')!;
const registry = createRegistry({
  config: { mcpServers: { everything: servers.everything!, web: { url: http.url } } },
  logger: quiet,
  refreshIntervalMs: 0,
});
await registry.start();

const bench = new Bench({ time: 2000, warmup: true });
bench
  .add('raw SDK client, stdio echo', async () => {
    await rawStdio.callTool({ name: 'echo', arguments: { message: 'hi' } });
  })
  .add('registry.callTool, stdio echo', async () => {
    await registry.callTool('everything__echo', { message: 'hi' });
  })
  .add('raw SDK client, HTTP echo (2026-07-28)', async () => {
    await rawHttp.callTool(
      { name: 'echo', arguments: { text: 'hi' } },
      { toolDefinition: echoDefinition },
    );
  })
  .add('registry.callTool, HTTP echo (2026-07-28)', async () => {
    await registry.callTool('web__echo', { text: 'hi' });
  })
  .add('registry.callTool, native calculate', async () => {
    await registry.callTool('calculate', { expression: '2 * (3 + 4)' });
  });
await bench.run();

const rows = benchRows(bench);
const byName = Object.fromEntries(rows.map((row) => [row.name, row]));
const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(0)}`;
console.log(
  `   ${'task'.padEnd(42)} ${'mean µs'.padStart(9)} ${'p50 µs'.padStart(9)} ${'p99 µs'.padStart(9)}  vs raw`,
);
for (const row of rows) {
  const raw = row.name.includes('stdio')
    ? byName['raw SDK client, stdio echo']
    : row.name.includes('HTTP')
      ? byName['raw SDK client, HTTP echo (2026-07-28)']
      : undefined;
  const versus =
    row.name.startsWith('raw') || !raw
      ? ''
      : `p50 ${(row.p50Us / raw.p50Us).toFixed(2)}× (${signed(row.p50Us - raw.p50Us)} µs), mean ${(row.meanUs / raw.meanUs).toFixed(2)}×`;
  console.log(
    `   ${row.name.padEnd(42)} ${row.meanUs.toFixed(0).padStart(9)} ${row.p50Us.toFixed(0).padStart(9)} ${row.p99Us.toFixed(0).padStart(9)}  ${versus}`,
  );
}

await registry.close();
await rawStdio.close();
await rawHttp.close();
await http.close();
