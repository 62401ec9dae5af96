// Gateway overhead: the same tools/call (native `calculate`) through `startServer` (this app:
// routing, host/auth checks, logging, call log, metrics, sessions) and through the bare
// forwarder's own listener, with N concurrent keep-alive clients. The contenders take turns in
// interleaved rounds (the order alternates each round), and the ratio is taken per round, so a
// noisy neighbour slows both sides of a ratio alike. Prints calls/s per round and the ratio's
// min/median/max. Run after a build: `pnpm --filter @toolwire/server bench`
// (BENCH_CLIENTS, BENCH_MS per turn, BENCH_ROUNDS).
import { Agent, request } from 'node:http';
import { PassThrough } from 'node:stream';
import { createForwarder } from '@toolwire/forwarder';
import { createRegistry, loadConfig } from '@toolwire/mcp';
import { startServer } from '../dist/index.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const DURATION_MS = Number(process.env.BENCH_MS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const config = { nativeTools: ['calculate'], mcpServers: {} };
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
};

function post(agent, url, body, headers) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Calls/s of CLIENTS keep-alive clients calling `calculate` for DURATION_MS. */
async function run(label, href, legacy) {
  const url = new URL(href);
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  let sessionId;
  if (legacy) {
    const init = await post(
      agent,
      url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'bench', version: '1' },
        },
      }),
      {},
    );
    sessionId = init.headers['mcp-session-id'];
  }
  let calls = 0;
  let id = 1;
  const deadline = performance.now() + DURATION_MS;
  const client = async () => {
    while (performance.now() < deadline) {
      const n = id++;
      const params = { name: 'calculate', arguments: { expression: `${n} * 2` } };
      const headers = legacy
        ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }
        : {
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 'calculate',
          };
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: n,
        method: 'tools/call',
        params: legacy ? params : { ...params, _meta: META },
      });
      const res = await post(agent, url, body, headers);
      if (res.status !== 200 || !res.text.includes(String(n * 2)))
        throw new Error(`${label}: bad answer ${res.status} ${res.text}`);
      calls++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return calls / seconds;
}

const quiet = new PassThrough();
quiet.resume();
const registry = createRegistry({ config: loadConfig(config) });
await registry.start();
// Same audit work as the gateway (one JSON line per call), so the ratio is the app's own cost.
const forwarder = createForwarder({
  source: registry,
  config,
  audit: (entry) =>
    quiet.write(
      `${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: 'tool call', ...entry })}\n`,
    ),
});
const bare = await forwarder.listen({ host: '127.0.0.1', port: 0 });
const gateway = await startServer({ config, port: 0, logStream: quiet });

const contenders = [
  { name: 'forwarder.listen /mcp, 2026-07-28', url: `${bare.url}/mcp`, legacy: false },
  { name: 'toolwire-server /mcp, 2026-07-28', url: `${gateway.url}/mcp`, legacy: false },
  { name: 'toolwire-server /mcp, 2025-11-25', url: `${gateway.url}/mcp`, legacy: true },
];
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (n) => Math.round(n).toLocaleString('en-US');

console.log(
  `${CLIENTS} concurrent keep-alive clients, native calculate tool, ${ROUNDS} interleaved rounds of ${DURATION_MS} ms per contender (after a warm-up turn each)`,
);
for (const c of contenders) await run(c.name, c.url, c.legacy);
const rates = contenders.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  const order = contenders.map((_, i) => i);
  if (round % 2) order.reverse();
  for (const i of order)
    rates[i].push(await run(contenders[i].name, contenders[i].url, contenders[i].legacy));
  console.log(
    `  round ${round + 1}: ${contenders.map((c, i) => `${fmt(rates[i][round])}`).join(' / ')} calls/s`,
  );
}
console.log('');
console.log(
  '| contender | calls/s min | median | max | ratio to bare forwarder min / median / max |',
);
console.log('|---|--:|--:|--:|--:|');
contenders.forEach((c, i) => {
  const ratios = rates[i].map((rate, round) => rate / rates[0][round]);
  console.log(
    `| ${c.name} | ${fmt(Math.min(...rates[i]))} | ${fmt(median(rates[i]))} | ${fmt(Math.max(...rates[i]))} | ${Math.min(...ratios).toFixed(2)} / ${median(ratios).toFixed(2)} / ${Math.max(...ratios).toFixed(2)} |`,
  );
});

await gateway.close();
await bare.close();
await forwarder.close();
await registry.close();
