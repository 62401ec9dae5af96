// `pnpm --filter @toolwire/forwarder bench`: forwarding overhead, throughput, the cache hit path and
// memory, against one upstream, with the `mcp-proxy` npm package as the peer. Every server runs in
// its own process; the load generator is raw HTTP (undici, keep-alive), so what is measured is the
// servers, not an MCP client library. `--long` runs the 1,000,000-call memory check.
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { createForwarder } from '../src/index.js';
import { startLeanUpstream } from '../test/fixtures/lean-upstream.js';
import { createHttpToolSource } from '../test/helpers/http-tool-source.js';

const LONG = process.argv.includes('--long');
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

interface Child {
  url: string;
  process: ChildProcess;
  rss(): Promise<{ rss: number; heap?: number; heapTotal?: number; cache?: number }>;
  stop(): void;
}

async function start(file: string, args: string[] = []): Promise<Child> {
  const child = fork(here(file), args, {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
    child.on('message', (message: { ready?: string }) => {
      if (message.ready) resolve(message.ready);
    });
  });
  return {
    url,
    process: child,
    rss: () =>
      new Promise((resolve) => {
        const onMessage = (message: { rss?: number }) => {
          if (message.rss !== undefined) {
            child.off('message', onMessage);
            resolve(message as { rss: number });
          }
        };
        child.on('message', onMessage);
        child.send({ rss: true });
      }),
    stop: () => {
      child.removeAllListeners('exit');
      child.kill('SIGTERM');
    },
  };
}

type Era = 'modern' | 'legacy';

/** One target endpoint, reached by `clients` keep-alive connections. */
async function connect(
  url: string,
  clients: number,
  era: Era,
): Promise<{ pool: Pool; path: string; sessions: string[]; close(): Promise<void> }> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: clients, pipelining: 1 });
  const sessions: string[] = [];
  if (era === 'legacy') {
    for (let i = 0; i < clients; i++) {
      const response = await pool.request({
        path: target.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'bench', version: '1' },
          },
        }),
      });
      await response.body.dump();
      const session = String(response.headers['mcp-session-id']);
      sessions.push(session);
      const ack = await pool.request({
        path: target.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      });
      await ack.body.dump();
    }
  }
  return { pool, path: target.pathname, sessions, close: () => pool.close() };
}

interface RunResult {
  calls: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
};

/** `clients` closed-loop clients calling `tool` until `calls` calls or `seconds` have passed. */
async function load(
  url: string,
  options: {
    tool: string;
    args: Record<string, unknown>;
    clients: number;
    calls?: number;
    seconds?: number;
    era?: Era;
  },
): Promise<RunResult> {
  const era = options.era ?? 'modern';
  const target = await connect(url, options.clients, era);
  const latencies: number[] = [];
  let errors = 0;
  let issued = 0;
  const deadline = options.seconds ? performance.now() + options.seconds * 1000 : Infinity;
  const limit = options.calls ?? Infinity;
  const bodyFor = (id: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: options.tool,
        arguments: options.args,
        ...(era === 'modern' ? { _meta: MODERN_META } : {}),
      },
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.clients }, async (_, client) => {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      };
      if (era === 'modern') {
        headers['mcp-protocol-version'] = '2026-07-28';
        headers['mcp-method'] = 'tools/call';
        headers['mcp-name'] = options.tool;
      } else {
        headers['mcp-protocol-version'] = '2025-11-25';
        headers['mcp-session-id'] = target.sessions[client]!;
      }
      while (issued < limit && performance.now() < deadline) {
        const id = ++issued;
        const t0 = performance.now();
        const response = await target.pool.request({
          path: target.path,
          method: 'POST',
          headers,
          body: bodyFor(id),
        });
        const text = await response.body.text();
        const t1 = performance.now();
        if (
          response.statusCode !== 200 ||
          !text.includes('"result"') ||
          text.includes('"isError":true')
        )
          errors++;
        latencies.push(t1 - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await target.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return {
    calls: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    errors,
  };
}

const ms = (v: number) => `${v.toFixed(3)} ms`;
const mb = (v: number) => `${(v / 1024 / 1024).toFixed(1)} MB`;
function row(label: string, r: RunResult): string {
  return `  ${label.padEnd(34)} ${r.perSecond.toFixed(0).padStart(6)} calls/s   p50 ${ms(r.p50).padStart(10)}   p99 ${ms(r.p99).padStart(10)}   (${r.calls} calls${r.errors ? `, ${r.errors} ERRORS` : ''})`;
}

async function cacheHitPath(): Promise<{ perCallUs: number; iterations: number }> {
  const upstream = await startLeanUpstream({ record: false });
  const source = createHttpToolSource({ up: upstream.url });
  await source.start();
  const forwarder = createForwarder({
    source,
    config: { mcpServers: { up: { url: upstream.url } } },
    audit: () => undefined,
  });
  const args = { key: 'cached' };
  await forwarder.callTool('up__lookup', args);
  const iterations = 200_000;
  for (let i = 0; i < 20_000; i++) await forwarder.callTool('up__lookup', args);
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) await forwarder.callTool('up__lookup', args);
  const perCallUs = ((performance.now() - t0) * 1000) / iterations;
  await forwarder.close();
  await source.close();
  await upstream.close();
  return { perCallUs, iterations };
}

async function main(): Promise<void> {
  console.log(
    `@toolwire/forwarder bench — Node ${process.version}, ${(await import('node:os')).cpus().length} cores, loopback${LONG ? ', long mode' : ''}`,
  );
  const upstream = await start('./processes/upstream.ts');
  const forwarder = await start('./processes/forwarder.ts', [
    upstream.url,
    `/tmp/toolwire-forwarder-bench-audit-${randomUUID()}.jsonl`,
  ]);
  const peer = await start('./processes/mcp-proxy.ts', [upstream.url]);
  const echo = { tool: 'echo', args: { text: 'hello' } };
  const fwEcho = { tool: 'up__echo', args: { text: 'hello' } };
  try {
    // Warm every path (JIT, connection pools, the peer's sessions).
    await load(upstream.url, { ...echo, clients: 4, calls: 4000 });
    await load(forwarder.url, { ...fwEcho, clients: 4, calls: 4000 });
    await load(peer.url, { ...echo, clients: 4, calls: 2000 });
    await load(peer.url, { ...echo, clients: 4, calls: 2000, era: 'legacy' });

    console.log('\n1 client, sequential echo calls (2026-07-28, stateless)');
    const seqDirect = await load(upstream.url, { ...echo, clients: 1, calls: 5000 });
    const seqForwarder = await load(forwarder.url, { ...fwEcho, clients: 1, calls: 5000 });
    const seqPeer = await load(peer.url, { ...echo, clients: 1, calls: 2000 });
    console.log(row('direct (upstream)', seqDirect));
    console.log(row('via @toolwire/forwarder', seqForwarder));
    console.log(row('via mcp-proxy', seqPeer));
    const overhead = seqForwarder.p50 - seqDirect.p50;
    console.log(
      `  forwarding overhead (p50 forwarder − p50 direct): ${ms(overhead)}   goal ≤ 0.300 ms: ${overhead <= 0.3 ? 'MET' : 'NOT MET'}`,
    );
    console.log(`  mcp-proxy overhead: ${ms(seqPeer.p50 - seqDirect.p50)}`);

    console.log('\n32 concurrent clients, echo, 5 s each');
    const conDirect = await load(upstream.url, { ...echo, clients: 32, seconds: 5 });
    const conForwarder = await load(forwarder.url, { ...fwEcho, clients: 32, seconds: 5 });
    const conPeerModern = await load(peer.url, { ...echo, clients: 32, seconds: 5 });
    const conPeerLegacy = await load(peer.url, { ...echo, clients: 32, seconds: 5, era: 'legacy' });
    const conForwarderLegacy = await load(forwarder.url, {
      ...fwEcho,
      clients: 32,
      seconds: 5,
      era: 'legacy',
    });
    console.log(row('direct (upstream)', conDirect));
    console.log(row('via @toolwire/forwarder (2026)', conForwarder));
    console.log(row('via @toolwire/forwarder (2025)', conForwarderLegacy));
    console.log(row('via mcp-proxy (2026)', conPeerModern));
    console.log(row('via mcp-proxy (2025 sessions)', conPeerLegacy));
    const peerBest = Math.max(conPeerModern.perSecond, conPeerLegacy.perSecond);
    const ours = conForwarder.perSecond;
    console.log(
      `  forwarder / direct: ${(ours / conDirect.perSecond).toFixed(2)}×   forwarder / mcp-proxy (its best era): ${(ours / peerBest).toFixed(2)}×`,
    );
    console.log(
      `  goal ≥ 2,000 calls/s: ${ours >= 2000 ? 'MET' : 'NOT MET'}   goal ≥ 2× mcp-proxy: ${ours >= 2 * peerBest ? 'MET' : 'NOT MET'}`,
    );

    console.log('\nResult cache (read-only tool, same arguments)');
    const hit = await cacheHitPath();
    console.log(
      `  hit path inside the forwarder (callTool, no HTTP): ${(hit.perCallUs / 1000).toFixed(4)} ms per call over ${hit.iterations} calls   goal < 0.1 ms: ${hit.perCallUs < 100 ? 'MET' : 'NOT MET'}`,
    );
    const cachedHttp = await load(forwarder.url, {
      tool: 'up__lookup',
      args: { key: 'k' },
      clients: 1,
      calls: 3000,
    });
    console.log(row('HTTP, cached lookup, 1 client', cachedHttp));
    console.log(
      `  vs uncached echo through the forwarder: p50 ${ms(seqForwarder.p50)} → ${ms(cachedHttp.p50)}`,
    );

    const total = LONG ? 1_000_000 : 200_000;
    const step = total / 10;
    console.log(
      `\nMemory over ${total.toLocaleString('en')} forwarded calls (32 clients; RSS after a GC)${LONG ? '' : ' — `--long` runs 1,000,000'}`,
    );
    const samples: number[] = [];
    const base = await forwarder.rss();
    console.log(
      `  after warm-up: RSS ${mb(base.rss)}, heap used ${mb(base.heap ?? 0)} of ${mb(base.heapTotal ?? 0)} reserved`,
    );
    for (let done = 0; done < total; done += step) {
      const r = await load(forwarder.url, { ...fwEcho, clients: 32, calls: step });
      const m = await forwarder.rss();
      samples.push(m.rss);
      console.log(
        `  ${(done + step).toLocaleString('en').padStart(9)} calls: RSS ${mb(m.rss)}, heap used ${mb(m.heap ?? 0)} of ${mb(m.heapTotal ?? 0)}, ${r.perSecond.toFixed(0)} calls/s${r.errors ? `, ${r.errors} errors` : ''}`,
      );
    }
    const firstHalf = samples.slice(0, samples.length / 2);
    const secondHalf = samples.slice(samples.length / 2);
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const drift = avg(secondHalf) - avg(firstHalf);
    console.log(
      `  RSS drift (mean of last half − mean of first half): ${mb(drift)} ${Math.abs(drift) < 20 * 1024 * 1024 ? '(flat)' : '(GROWING)'}`,
    );
    const peerRss = await peer.rss();
    const upRss = await upstream.rss();
    console.log(
      `  RSS now: forwarder ${mb(samples.at(-1)!)}, mcp-proxy ${mb(peerRss.rss)}, upstream ${mb(upRss.rss)}`,
    );
  } finally {
    upstream.stop();
    forwarder.stop();
    peer.stop();
  }
}

await main();
