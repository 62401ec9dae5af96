// Many tenants on one gateway: a polite token's latency alone, then while a hostile token floods
// the same `toolwire-server` process with CPU-bound scripts, type-level bombs, server-to-client
// streams and connections that drip their headers a byte every 2 s. Prints the polite token's
// p50/p99 per kind of request, quiet and under attack, and the ratio of the p99s (goal: ≤ 2×).
// Quiet and attack phases take turns (TENANTS_ROUNDS of each), so a neighbour's load on a shared
// machine weighs on both alike. Printed, never asserted: run it on a quiet machine for numbers that
// mean something. Run after a build: `pnpm --filter @toolwire/server bench:tenants`
// (TENANTS_ROUNDS, TENANTS_QUIET_MS, TENANTS_ATTACK_MS per round, TENANTS_CODE_FLOOD,
// TENANTS_BOMBS, TENANTS_STREAMS, TENANTS_SLOW_HEADERS).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { typeLevelBomb } from '@toolwire/testing/memory';

const ROUNDS = Number(process.env.TENANTS_ROUNDS ?? 3);
const QUIET_MS = Number(process.env.TENANTS_QUIET_MS ?? 8_000);
const ATTACK_MS = Number(process.env.TENANTS_ATTACK_MS ?? 8_000);
const CODE_FLOOD = Number(process.env.TENANTS_CODE_FLOOD ?? 6);
const BOMBS = Number(process.env.TENANTS_BOMBS ?? 3);
const STREAMS = Number(process.env.TENANTS_STREAMS ?? 64);
const SLOW_HEADERS = Number(process.env.TENANTS_SLOW_HEADERS ?? 100);
const HOSTILE = 'bench-hostile-token-0123456789';
const POLITE = 'bench-polite-token-0123456789';
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
};

/** One HTTP exchange; resolves with the status and the body's text. */
function exchange(agent, base, path, { method = 'POST', headers = {}, body } = {}) {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: url.hostname, port: url.port, path: url.pathname, method, headers },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const json = (token) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: `Bearer ${token}`,
});

function toolCall(agent, base, token, name, args) {
  return exchange(agent, base, '/mcp', {
    headers: {
      ...json(token),
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: args, _meta: META },
    }),
  });
}

function runCode(agent, base, token, code, typecheck) {
  return exchange(agent, base, '/api/code', {
    headers: json(token),
    body: JSON.stringify({ code, typecheck }),
  });
}

/** The polite token's requests, one after the other, in turn. */
const POLITE_KINDS = {
  'tools/call calculate (native)': (agent, base) =>
    toolCall(agent, base, POLITE, 'calculate', { expression: '6*7' }),
  'tools/call fx__echo (stdio upstream)': (agent, base) =>
    toolCall(agent, base, POLITE, 'fx__echo', { text: 'hi' }),
  '/api/code return 1 (type-checked)': (agent, base) =>
    runCode(agent, base, POLITE, 'return 1;', 'error'),
};

async function measurePolite(base, durationMs) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times = Object.fromEntries(Object.keys(POLITE_KINDS).map((kind) => [kind, []]));
  const failures = [];
  const end = Date.now() + durationMs;
  while (Date.now() < end) {
    for (const [kind, send] of Object.entries(POLITE_KINDS)) {
      const started = performance.now();
      const answer = await send(agent, base);
      times[kind].push(performance.now() - started);
      if (answer.status !== 200 || answer.text.includes('"error"'))
        failures.push(`${kind}: ${answer.status} ${answer.text.slice(0, 160)}`);
    }
  }
  agent.destroy();
  return { times, failures };
}

/** The hostile token's attack; `stop()` ends it and gives what it got. */
function attack(base) {
  let stopped = false;
  const stats = {
    codeRuns: 0,
    codeRefused: 0,
    bombs: 0,
    bombsRefused: 0,
    streams: 0,
    streamsRefused: 0,
    slowHeadersCut: 0,
  };
  const agent = new Agent({ keepAlive: true, maxSockets: CODE_FLOOD + BOMBS });
  const loops = [];
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  // CPU-bound scripts as fast as the share lets them in (a refusal is retried 50 ms later).
  for (let i = 0; i < CODE_FLOOD; i++) {
    loops.push(
      (async () => {
        while (!stopped) {
          const answer = await runCode(
            agent,
            base,
            HOSTILE,
            'for (let i = 0; i < 3e7; i++); return 1;',
            'off',
          ).catch(() => ({ status: 0 }));
          if (answer.status === 200) stats.codeRuns++;
          else {
            stats.codeRefused++;
            await pause(50);
          }
        }
      })(),
    );
  }
  for (let i = 0; i < BOMBS; i++) {
    loops.push(
      (async () => {
        while (!stopped) {
          const answer = await runCode(agent, base, HOSTILE, typeLevelBomb, 'error').catch(() => ({
            status: 0,
          }));
          if (answer.status === 200) stats.bombs++;
          else {
            stats.bombsRefused++;
            await pause(50);
          }
        }
      })(),
    );
  }
  // Server-to-client streams: a session and as many GET streams as it is let open.
  const streams = [];
  loops.push(
    (async () => {
      const url = new URL('/mcp', base);
      const sessionId = await new Promise((resolve) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: '/mcp',
            method: 'POST',
            headers: json(HOSTILE),
          },
          (res) => {
            res.resume();
            resolve(res.headers['mcp-session-id']);
          },
        );
        req.on('error', () => resolve(undefined));
        req.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-11-25',
              capabilities: {},
              clientInfo: { name: 'hostile', version: '1' },
            },
          }),
        );
      });
      if (!sessionId) return;
      for (let i = 0; i < STREAMS && !stopped; i++) {
        await new Promise((resolve) => {
          const req = request(
            {
              host: url.hostname,
              port: url.port,
              path: '/mcp',
              headers: {
                accept: 'text/event-stream',
                authorization: `Bearer ${HOSTILE}`,
                'mcp-session-id': sessionId,
                'mcp-protocol-version': '2025-11-25',
              },
            },
            (res) => {
              if (res.statusCode === 200) stats.streams++;
              else stats.streamsRefused++;
              res.resume();
              streams.push(req);
              resolve();
            },
          );
          req.on('error', () => resolve());
          req.end();
        });
      }
    })(),
  );
  // Connections that drip a header byte every 2 s, opened again when cut.
  const sockets = new Set();
  const url = new URL(base);
  const drip = () => {
    if (stopped) return;
    const socket = connect(Number(url.port), url.hostname);
    sockets.add(socket);
    const text = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' + 'a'.repeat(10_000);
    let at = 0;
    const timer = setInterval(() => socket.writable && socket.write(text[at++]), 2_000);
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      sockets.delete(socket);
      stats.slowHeadersCut++;
      if (!stopped) setTimeout(drip, 100);
    });
  };
  for (let i = 0; i < SLOW_HEADERS; i++) drip();
  return {
    stats,
    async stop() {
      stopped = true;
      for (const req of streams) req.destroy();
      for (const socket of sockets) socket.destroy();
      await Promise.all(loops);
      agent.destroy();
      return stats;
    },
  };
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function startGateway() {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-tenants-bench-'));
  const config = join(dir, 'toolwire.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      nativeTools: ['calculate'],
      mcpServers: { fx: fixtureStdioConfig({ tools: ['echo'] }) },
      auth: {
        tokens: [
          { token: HOSTILE, client: 'hostile', allow: ['*'] },
          { token: POLITE, client: 'polite', allow: ['*'] },
        ],
      },
    }),
  );
  const child = spawn(process.execPath, [MAIN, '--config', config, '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') },
  });
  let stderr = '';
  const base = await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const found = /MCP at (http:\/\/[^\s]+)\/mcp/.exec(stderr);
      if (found) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`toolwire-server exited (${code}): ${stderr}`)));
  });
  return {
    base,
    async stop() {
      child.kill('SIGINT');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const gateway = await startGateway();
try {
  // Warm: TypeScript and the sandbox loaded, the upstream connected.
  await measurePolite(gateway.base, 5_000);
  const load = () =>
    loadavg()
      .map((value) => value.toFixed(2))
      .join(' ');
  const loads = [load()];
  const quiet = {
    times: Object.fromEntries(Object.keys(POLITE_KINDS).map((k) => [k, []])),
    failures: [],
  };
  const underAttack = {
    times: Object.fromEntries(Object.keys(POLITE_KINDS).map((k) => [k, []])),
    failures: [],
  };
  const add = (into, from) => {
    for (const [kind, times] of Object.entries(from.times)) into.times[kind].push(...times);
    into.failures.push(...from.failures);
  };
  const total = {
    codeRuns: 0,
    codeRefused: 0,
    bombs: 0,
    bombsRefused: 0,
    streams: 0,
    streamsRefused: 0,
    slowHeadersCut: 0,
  };
  for (let round = 0; round < ROUNDS; round++) {
    add(quiet, await measurePolite(gateway.base, QUIET_MS));
    const hostile = attack(gateway.base);
    // Let the attack reach its steady state (shares full, streams open) before measuring.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    add(underAttack, await measurePolite(gateway.base, ATTACK_MS));
    loads.push(load());
    const stats = await hostile.stop();
    for (const key of Object.keys(total)) total[key] += stats[key];
    // The attack's last runs and checks end before the next quiet phase.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
  }
  const stats = total;

  console.log(
    `toolwire-server, two tokens; ${cpus().length} CPUs; ${ROUNDS} rounds of ${QUIET_MS} ms quiet and ${ATTACK_MS} ms under attack; load average (1 5 15 min) at the start and after each attack: ${loads.join(' | ')}`,
  );
  console.log(
    `hostile: ${CODE_FLOOD} loops of CPU-bound scripts, ${BOMBS} of type-level bombs, ${STREAMS} GET streams, ${SLOW_HEADERS} connections dripping a header byte every 2 s`,
  );
  console.log(
    `  in all it got ${stats.codeRuns} runs (${stats.codeRefused} refused), ${stats.bombs} bombs checked (${stats.bombsRefused} refused), ${stats.streams} streams (${stats.streamsRefused} refused), ${stats.slowHeadersCut} dripping connections cut`,
  );
  console.log('polite, one request at a time (ms):');
  const rows = [];
  for (const kind of Object.keys(POLITE_KINDS)) {
    const q = quiet.times[kind];
    const a = underAttack.times[kind];
    const ratio = percentile(a, 99) / percentile(q, 99);
    rows.push(ratio);
    console.log(
      `  ${kind.padEnd(38)} quiet p50 ${percentile(q, 50).toFixed(1).padStart(7)} p99 ${percentile(q, 99).toFixed(1).padStart(7)} (n=${q.length}) | attack p50 ${percentile(a, 50).toFixed(1).padStart(7)} p99 ${percentile(a, 99).toFixed(1).padStart(7)} (n=${a.length}) | p99 ratio ${ratio.toFixed(2)}×`,
    );
  }
  const all = (phase) => Object.values(phase.times).flat();
  const ratio = percentile(all(underAttack), 99) / percentile(all(quiet), 99);
  console.log(
    `  ${'all kinds'.padEnd(38)} quiet p99 ${percentile(all(quiet), 99).toFixed(1)} | attack p99 ${percentile(all(underAttack), 99).toFixed(1)} | p99 ratio ${ratio.toFixed(2)}× (goal ≤ 2×)`,
  );
  const failures = [...quiet.failures, ...underAttack.failures];
  if (failures.length > 0)
    console.log(`polite failures (${failures.length}):\n  ${failures.slice(0, 5).join('\n  ')}`);
} finally {
  await gateway.stop();
}
