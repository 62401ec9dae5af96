// Gateway overhead: the same tools/call (native `calculate`) through `startServer` (this app:
// routing, host/auth checks, body buffering, legacy session verification) and through the bare
// forwarder's own listener, with N concurrent keep-alive clients. Prints calls/s and latency.
// Run after a build: `pnpm --filter @toolwire/server bench`.
import { Agent, request } from 'node:http';
import { PassThrough } from 'node:stream';
import { createForwarder } from '@toolwire/forwarder';
import { createRegistry, loadConfig } from '@toolwire/mcp';
import { startServer } from '../dist/index.js';

const CLIENTS = 16;
const DURATION_MS = Number(process.env.BENCH_MS ?? 3000);
const config = { nativeTools: ['calculate'], mcpServers: {} };
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
};

function post(agent, url, body, headers) {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
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

async function run(label, url, legacy) {
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
  const latencies = [];
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
      const started = performance.now();
      const res = await post(agent, url, body, headers);
      if (res.status !== 200 || !res.text.includes(String(n * 2)))
        throw new Error(`${label}: bad answer ${res.status} ${res.text}`);
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(2);
  const rate = latencies.length / seconds;
  console.log(
    `${label.padEnd(44)} ${rate.toFixed(0).padStart(7)} calls/s   p50 ${at(0.5)} ms   p99 ${at(0.99)} ms`,
  );
  return rate;
}

const quiet = new PassThrough();
quiet.resume();
const registry = createRegistry({ config: loadConfig(config) });
await registry.start();
// Same audit work as the gateway (one JSON line per call), so the ratio is the HTTP layer's cost.
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

console.log(`${CLIENTS} concurrent clients, ${DURATION_MS} ms each, native calculate tool`);
const direct = await run('forwarder.listen, 2026-07-28', `${bare.url}/mcp`, false);
const modern = await run('toolwire-server /mcp, 2026-07-28', `${gateway.url}/mcp`, false);
const legacy = await run('toolwire-server /mcp, 2025-11-25 session', `${gateway.url}/mcp`, true);
console.log(
  `ratio gateway/forwarder (2026-07-28): ${(modern / direct).toFixed(2)}; legacy/modern: ${(legacy / modern).toFixed(2)}`,
);

await gateway.close();
await bare.close();
await forwarder.close();
await registry.close();
