// Gateway overhead: the same tools/call (native `calculate`) through `startServer` (this app:
// routing, host/auth checks, logging, call log, metrics, sessions) and through the bare
// forwarder's own listener, each in its own process, with N concurrent keep-alive clients in this
// one. The contenders take turns in interleaved rounds (the order alternates each round), and
// ratios are taken per round, so a noisy neighbour slows both sides of a ratio alike. Prints
// calls/s and the server process's CPU µs per call, with each ratio's min/median/max; on a shared
// machine the CPU per call is the steadier of the two. Run after a build: `pnpm --filter @toolwire/server bench`
// (BENCH_CLIENTS, BENCH_MS per turn, BENCH_ROUNDS, BENCH_ONLY=<index> of one contender,
// BENCH_PROFILE=<dir> for `--cpu-prof` of the server processes).
import { Agent, request } from 'node:http';
import { fork } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createForwarder } from '@toolwire/forwarder';
import { createRegistry, loadConfig } from '@toolwire/mcp/node';
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
  return { rate: calls / seconds, calls };
}

/** A child process serving one side: the bare forwarder or the app, on the same config. */
async function serve(kind) {
  const quiet = new PassThrough();
  quiet.resume();
  let url;
  if (kind === 'bare') {
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
    ({ url } = await forwarder.listen({ host: '127.0.0.1', port: 0 }));
  } else {
    ({ url } = await startServer({ config, port: 0, logStream: quiet }));
  }
  process.on('message', () => process.send({ cpu: process.cpuUsage() }));
  // Exiting (not dying of a signal) lets `--cpu-prof` write its profile.
  process.on('disconnect', () => process.exit(0));
  process.send({ url });
}

if (process.argv[2] === 'serve') {
  await serve(process.argv[3]);
} else {
  await main();
}

function spawnServer(kind) {
  // BENCH_PROFILE=<dir> writes a V8 CPU profile of each server process there.
  const profile = process.env.BENCH_PROFILE;
  const child = fork(fileURLToPath(import.meta.url), ['serve', kind], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}/${kind}`] : [],
  });
  const next = () => new Promise((resolve) => child.once('message', resolve));
  return next().then(({ url }) => ({
    url,
    child,
    /** CPU µs the server process has used so far. */
    cpu: async () => {
      const answer = next();
      child.send('cpu');
      const { cpu } = await answer;
      return cpu.user + cpu.system;
    },
  }));
}

async function main() {
  const bare = await spawnServer('bare');
  const gateway = await spawnServer('app');
  const all = [
    { name: 'forwarder.listen /mcp, 2026-07-28', server: bare, path: '/mcp', legacy: false },
    { name: 'toolwire-server /mcp, 2026-07-28', server: gateway, path: '/mcp', legacy: false },
    { name: 'toolwire-server /mcp, 2025-11-25', server: gateway, path: '/mcp', legacy: true },
  ];
  // BENCH_ONLY=<index> runs one contender alone (for a profile of its server).
  const contenders = process.env.BENCH_ONLY ? [all[Number(process.env.BENCH_ONLY)]] : all;
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  const fmt = (n) => Math.round(n).toLocaleString('en-US');
  const spread = (values) =>
    `${Math.min(...values).toFixed(2)} / ${median(values).toFixed(2)} / ${Math.max(...values).toFixed(2)}`;

  /** One turn: calls/s seen by the clients and CPU µs per call used by the server process. */
  async function turn(c) {
    const before = await c.server.cpu();
    const { rate, calls } = await run(c.name, `${c.server.url}${c.path}`, c.legacy);
    return { rate, cpuPerCall: ((await c.server.cpu()) - before) / calls };
  }

  console.log(
    `${CLIENTS} concurrent keep-alive clients, native calculate tool, each server in its own process; ${ROUNDS} interleaved rounds of ${DURATION_MS} ms per contender (after a warm-up turn each)`,
  );
  for (const c of contenders) await turn(c);
  const turns = contenders.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = contenders.map((_, i) => i);
    if (round % 2) order.reverse();
    for (const i of order) turns[i].push(await turn(contenders[i]));
    console.log(
      `  round ${round + 1}: ${contenders.map((_, i) => `${fmt(turns[i][round].rate)} calls/s ${turns[i][round].cpuPerCall.toFixed(0)} µs`).join(' | ')}`,
    );
  }
  console.log('');
  console.log(
    '| contender | calls/s min / median / max | ratio to bare (calls/s, per round) | server CPU µs/call median | ratio bare/this (CPU, per round) |',
  );
  console.log('|---|--:|--:|--:|--:|');
  contenders.forEach((c, i) => {
    const rates = turns[i].map((t) => t.rate);
    const cpu = turns[i].map((t) => t.cpuPerCall);
    console.log(
      `| ${c.name} | ${fmt(Math.min(...rates))} / ${fmt(median(rates))} / ${fmt(Math.max(...rates))} | ${spread(rates.map((rate, r) => rate / turns[0][r].rate))} | ${median(cpu).toFixed(0)} | ${spread(cpu.map((value, r) => turns[0][r].cpuPerCall / value))} |`,
    );
  });
  for (const { child } of [bare, gateway]) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.disconnect();
    await exited;
  }
}
