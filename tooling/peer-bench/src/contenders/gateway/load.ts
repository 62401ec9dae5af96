// What every gateway contender shares: starting its processes on 127.0.0.1, and the load — N
// official SDK clients (`@modelcontextprotocol/client`, streamable HTTP), each in a closed loop
// calling the upstream's no-delay `echo` tool through the gateway; the result is calls/s.
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { envNumber, report } from '../../harness.js';
import {
  startHttpUpstream,
  stdioUpstream,
  type UpstreamKind,
} from '../../fixtures/gateway-upstream.js';

/** Set by the layer: which upstream kind and how many concurrent clients. */
export const upstreamKind = (process.env.GATEWAY_UPSTREAM ?? 'stdio') as UpstreamKind;
export const clientCount = envNumber('GATEWAY_CLIENTS', 1);
const durationMs = envNumber('GATEWAY_DURATION_MS', 3000);
const warmupMs = envNumber('GATEWAY_WARMUP_MS', 1000);

const children: ChildProcess[] = [];
const cleanups: Array<() => void> = [];

function stopAll(): void {
  for (const cleanup of cleanups.splice(0)) cleanup();
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.pid === undefined) continue;
    // Its own process group: a gateway's stdio children go with it.
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }
}
process.on('exit', stopAll);
// The runner's timeout (or a user's Ctrl-C) must not leave gateways behind.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    stopAll();
    process.exit(1);
  });
}

/** CPU seconds used so far by every process the contender started (and their children). */
function processTreeCpu(): number {
  const ticks = 100; // USER_HZ on Linux
  let total = 0;
  let out = '';
  try {
    out = execFileSync('ps', ['-e', '-o', 'pgid=,pid='], { encoding: 'utf8' });
  } catch {
    return 0;
  }
  const groups = new Set(children.map((child) => child.pid));
  for (const line of out.trim().split('\n')) {
    const [pgid, pid] = line.trim().split(/\s+/).map(Number);
    if (!groups.has(pgid)) continue;
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / ticks;
    } catch {
      // ended meanwhile
    }
  }
  return total;
}

/** Stops `cleanup` with the contender (an upstream started elsewhere, say). */
export function onStop(cleanup: () => void): void {
  cleanups.push(cleanup);
}

/** A free port on 127.0.0.1 (for peers that take `--port N` and print nothing parseable). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.once('error', reject);
  });
}

/** A temporary folder for a peer's config, cache and state. */
export function scratch(files: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'peer-bench-gateway-'));
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(dir, name), JSON.stringify(content, null, 2));
  }
  return dir;
}

/** Starts a gateway process in its own process group; it is killed when the contender ends. */
export function startProcess(
  command: string,
  args: string[],
  options: SpawnOptions = {},
): ChildProcess {
  const child = spawn(command, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
    ...options,
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  child.once('exit', (code, signal) => {
    if (children.includes(child)) {
      process.stderr.write(`${command} ${args.join(' ')} exited (${signal ?? code}):\n${stderr}\n`);
      process.exit(1);
    }
  });
  children.push(child);
  return child;
}

/** How clients reach a gateway: streamable HTTP, or the older HTTP+SSE transport (mcp-hub's only one). */
export type ClientTransport = 'streamable-http' | 'sse';

async function connect(url: string, transport: ClientTransport): Promise<Client> {
  const client = new Client({ name: 'peer-bench', version: '1.0.0' });
  await client.connect(
    transport === 'sse'
      ? new SSEClientTransport(new URL(url))
      : new StreamableHTTPClientTransport(new URL(url)),
  );
  return client;
}

/** Waits until the gateway at `url` lists a tool named `echo` (any prefix), and returns its name. */
async function echoTool(url: string, transport: ClientTransport): Promise<string> {
  const deadline = Date.now() + 60_000;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const client = await connect(url, transport);
      try {
        const { tools } = await client.listTools();
        const tool = tools.find((t) => /(^|\W|_)echo$/.test(t.name));
        if (tool) return tool.name;
        last = new Error(`no echo tool among ${tools.map((t) => t.name).join(', ')}`);
      } finally {
        await client.close().catch(() => undefined);
      }
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} never listed an echo tool: ${String(last)}`);
}

/** One closed-loop caller: calls until `until`, returns how many calls completed. */
async function loop(call: () => Promise<unknown>, until: number): Promise<number> {
  let done = 0;
  while (performance.now() < until) {
    await call();
    done++;
  }
  return done;
}

/** Caller i runs `calls[i]` in a closed loop: a warm-up, then calls/s over the measured window. */
export async function measure(calls: Array<() => Promise<unknown>>): Promise<number> {
  await Promise.all(calls.map((call) => loop(call, performance.now() + warmupMs)));
  const started = performance.now();
  const until = started + durationMs;
  const counts = await Promise.all(calls.map((call) => loop(call, until)));
  const seconds = (performance.now() - started) / 1000;
  return counts.reduce((a, b) => a + b, 0) / seconds;
}

/** An echo call whose answer is checked: a gateway that drops or mangles calls does not score. */
export function echoCall(client: Client, tool: string): () => Promise<void> {
  let n = 0;
  return async () => {
    const text = `hello ${n++}`;
    const result = await client.callTool({ name: tool, arguments: { text } });
    const content = result.content as Array<{ type: string; text?: string }> | undefined;
    if (result.isError || !content?.some((c) => c.type === 'text' && c.text?.endsWith(text))) {
      throw new Error(`${tool} answered ${JSON.stringify(result).slice(0, 300)}`);
    }
  };
}

/**
 * The gateway at `url` under `clientCount` SDK clients (one session each), reported as calls/s;
 * then everything the contender started is stopped.
 */
export async function benchGateway(
  url: string,
  transport: ClientTransport = 'streamable-http',
): Promise<void> {
  const tool = await echoTool(url, transport);
  const clients = await Promise.all(
    Array.from({ length: clientCount }, () => connect(url, transport)),
  );
  const cpuBefore = processTreeCpu();
  const ownBefore = process.cpuUsage();
  let calls = 0;
  const rate = await measure(
    clients.map((client) => {
      const call = echoCall(client, tool);
      return () => call().then(() => void calls++);
    }),
  );
  if (process.env.GATEWAY_CPU_REPORT) {
    // CPU time per call is what a loaded machine cannot blur: gateway (+ its stdio upstream) and
    // the load generator, in microseconds.
    const gateway = processTreeCpu() - cpuBefore;
    const own = process.cpuUsage(ownBefore);
    process.stderr.write(
      `cpu per call: gateway processes ${((gateway * 1e6) / calls).toFixed(0)} µs, clients ${((own.user + own.system) / calls).toFixed(0)} µs (${calls} calls incl. warm-up)\n`,
    );
  }
  report(rate);
  stopAll();
  // Some peers leave a client's stream open after it closed; the measurement is done.
  process.exit(0);
}

/** A peer's bin script inside tooling/peer-bench/node_modules (run with this Node). */
export function peerBin(name: string, bin: string): string {
  return fileURLToPath(new URL(`../../../node_modules/${name}/${bin}`, import.meta.url));
}

export type Upstream =
  { kind: 'http'; url: string } | { kind: 'stdio'; command: string; args: string[] };

/** The layer's upstream: the HTTP one is started (and stopped with the contender) here. */
export async function upstream(): Promise<Upstream> {
  if (upstreamKind === 'stdio') return { kind: 'stdio', ...stdioUpstream() };
  const http = await startHttpUpstream();
  onStop(http.stop);
  return { kind: 'http', url: http.url };
}
