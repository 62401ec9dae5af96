import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { serverEntry } from '@toolwire/mcp/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN_DIR, SERVER_ROOT } from './global-setup.js';
import { freePort, modernCall, startRedis, textOf, waitFor } from './helpers.js';

// A fleet as the README shows it: three `toolwire-server` processes on one Redis behind Debian's
// nginx (the README's nginx block, only the ports changed), bearer auth, SDK clients of both
// protocol revisions writing then reading through nginx while instances are restarted, crash and
// Redis goes away.

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path));
const REDIS = spawnSync('redis-server', ['--version']).status === 0;
const BIN = join(BIN_DIR, 'main.js');
const TOKEN = 'fleet-token';
const PROBES = 10;
/** Calls each revision's clients complete before and after each fault (not a time: a loaded machine only takes longer). */
const SETTLE_CALLS = 120;
/** Rolling restarts in a row (`TOOLWIRE_FLEET_ROUNDS`, for a stress run). */
const ROUNDS = Number(process.env.TOOLWIRE_FLEET_ROUNDS ?? 1);
/** SDK clients per protocol revision (`TOOLWIRE_FLEET_CLIENTS`, for a stress run). */
const CLIENTS = Number(process.env.TOOLWIRE_FLEET_CLIENTS ?? 4);

/** The nginx block of the README's fleet section, with its ports replaced. */
function readmeNginxBlock(listen: number, instances: number[]): string {
  const readme = readFileSync(join(SERVER_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Many instances behind a load balancer'));
  const block = /```nginx\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('README: no nginx block in the fleet section');
  let text = block.replace(/^(\s*)listen 8800;$/m, `$1listen 127.0.0.1:${listen};`);
  instances.forEach((port, i) => {
    text = text.replace(`server 127.0.0.1:${8801 + i} `, `server 127.0.0.1:${port} `);
  });
  for (const port of [8800, 8801, 8802, 8803]) {
    if (text.includes(String(port))) throw new Error(`README nginx block: port ${port} left over`);
  }
  return text;
}

interface Instance {
  port: number;
  child: ChildProcess;
  exit: Promise<number | null>;
  stdout: () => string;
}

interface Tally {
  calls: number;
  failures: string[];
  stale: number;
}

// In CI (.ci/run installs both) a missing package fails the fleet test instead of skipping it.
describe.skipIf((!NGINX || !REDIS) && !process.env.CI)(
  `a fleet of three instances behind nginx on one Redis${NGINX && REDIS ? '' : ' (skipped: Debian packages "nginx-light" and "redis-server" are needed)'}`,
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-fleet-'));
    const files = join(dir, 'files');
    const configPath = join(dir, 'toolwire.config.json');
    let redisPort: number;
    let redis: { url: string; process: ChildProcess };
    let nginx: ChildProcess;
    let nginxUrl: string;
    const instances: Instance[] = [];

    async function startInstance(port: number): Promise<Instance> {
      // The README's command line.
      const child = spawn(
        process.execPath,
        [
          BIN,
          '--config',
          configPath,
          '--port',
          String(port),
          '--allowed-hosts',
          'gateway.example.com',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GW_TOKEN: TOKEN } },
      );
      let out = '';
      let err = '';
      child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const exit = new Promise<number | null>((resolve) =>
        child.on('exit', (code) => resolve(code)),
      );
      await waitFor(
        () => err.includes('MCP at') || undefined,
        // Read when the wait fails: what the instance said until then.
        () => `instance :${port} (stderr: ${err})`,
        30_000,
      );
      await waitFor(
        async () => (await readyz(port)) === 200 || undefined,
        `instance :${port} ready`,
      );
      return { port, child, exit, stdout: () => out };
    }

    /** `/readyz` as a load balancer's health check asks it: no token. */
    async function readyz(port: number): Promise<number> {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`);
        await res.arrayBuffer();
        return res.status;
      } catch {
        return 0;
      }
    }

    beforeAll(async () => {
      mkdirSync(files);
      redisPort = await freePort();
      redis = await startRedis(redisPort);
      const ports = [await freePort(), await freePort(), await freePort()];
      const filesystem = serverEntry(
        '@modelcontextprotocol/server-filesystem',
        createRequire(join(SERVER_ROOT, 'package.json')).resolve,
      );
      writeFileSync(
        configPath,
        JSON.stringify({
          // Every instance runs its own filesystem server on the same folder: state all share.
          mcpServers: { fs: { command: process.execPath, args: [filesystem, files] } },
          redis: redis.url,
          auth: {
            tokens: [
              { token: '${GW_TOKEN}', client: 'ci', allow: ['*'] },
              ...Array.from({ length: PROBES }, (_, i) => ({
                token: `probe-${i}`,
                client: `probe-${i}`,
                allow: ['*'],
              })),
            ],
          },
          policy: {
            rateLimit: { perMinute: 1_000_000, perTool: { fs__list_allowed_directories: 3 } },
          },
          // The read is cached: a write must drop it on every instance.
          cache: { ttlSeconds: 60, tools: ['fs__read_text_file'] },
        }),
      );
      for (const port of ports) instances.push(await startInstance(port));

      const listen = await freePort();
      const conf = join(dir, 'nginx.conf');
      writeFileSync(
        conf,
        [
          'daemon off;',
          'worker_processes 1;',
          `pid ${dir}/nginx.pid;`,
          `error_log ${dir}/nginx-error.log warn;`,
          'events { worker_connections 1024; }',
          'http {',
          // When and where each request went: a failure is placed against an instance's log.
          `  log_format fleet '$msec $status $request_method $upstream_addr $upstream_status';`,
          `  access_log ${dir}/nginx-access.log fleet;`,
          ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
            (kind) => `  ${kind}_temp_path ${dir}/${kind}-temp;`,
          ),
          readmeNginxBlock(listen, ports),
          '}',
        ].join('\n'),
      );
      nginx = spawn(NGINX!, ['-p', dir, '-c', conf, '-e', `${dir}/nginx-error.log`], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      nginxUrl = `http://127.0.0.1:${listen}`;
      await waitFor(
        async () =>
          (await fetch(`${nginxUrl}/healthz`).then(
            (r) => r.status,
            () => 0,
          )) === 200 || undefined,
        'nginx to answer',
      );
    }, 90_000);

    afterAll(async () => {
      for (const instance of instances) instance.child.kill('SIGKILL');
      nginx?.kill('SIGQUIT');
      redis?.process.kill('SIGKILL');
    });

    /** `CLIENTS` SDK clients of one revision through nginx, each writing its file then reading it back. */
    async function load(mode: 'legacy' | 'auto', tally: Tally, running: { on: boolean }) {
      const clients = await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          const client = new Client({ name: 'fleet', version: '1.0.0' }, {
            versionNegotiation: { mode },
          } as never);
          await client.connect(
            new StreamableHTTPClientTransport(new URL(`${nginxUrl}/mcp`), {
              requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
            }),
          );
          return client;
        }),
      );
      const versions = clients.map(
        (c) => (c.transport as StreamableHTTPClientTransport).protocolVersion,
      );
      const loops = clients.map(async (client, i) => {
        const path = join(files, `${mode}-${i}.txt`);
        for (let n = 0; running.on; n++) {
          const text = `${mode} ${i} ${n}`;
          try {
            tally.calls++;
            const wrote = await client.callTool({
              name: 'fs__write_file',
              arguments: { path, content: text },
            });
            if (wrote.isError) throw new Error(JSON.stringify(wrote.content));
            tally.calls++;
            const read = await client.callTool({ name: 'fs__read_text_file', arguments: { path } });
            if (read.isError) throw new Error(JSON.stringify(read.content));
            const got = (read.content as Array<{ text?: string }>)
              .map((c) => c.text ?? '')
              .join('');
            if (got !== text) tally.stale++;
          } catch (error) {
            tally.failures.push((error as Error).message);
          }
        }
      });
      return {
        versions,
        stop: async () => {
          running.on = false;
          await Promise.all(loops);
          await Promise.all(clients.map((c) => c.close().catch(() => {})));
        },
      };
    }

    /** Runs both revisions' clients around `fault`, and returns each revision's tally. */
    async function underLoad(fault: (tallies: Record<string, Tally>) => Promise<void>) {
      const tallies = { legacy: newTally(), auto: newTally() };
      const running = { on: true };
      const legacy = await load('legacy', tallies.legacy, running);
      const modern = await load('auto', tallies.auto, running);
      expect(legacy.versions.every((v) => v === '2025-11-25')).toBe(true);
      expect(modern.versions.every((v) => v === '2026-07-28')).toBe(true);
      await settled(tallies);
      try {
        await fault(tallies);
        await settled(tallies);
      } finally {
        await legacy.stop();
        await modern.stop();
      }
      return { '2025-11-25': tallies.legacy, '2026-07-28': tallies.auto };
    }

    function report(name: string, result: Record<string, Tally>): void {
      for (const [version, t] of Object.entries(result)) {
        console.log(
          `[fleet] ${name} ${version}: ${t.calls} calls, ${t.failures.length} failed, ${t.stale} stale reads${t.failures.length ? ` (${[...new Set(t.failures)].slice(0, 3).join(' | ')})` : ''}`,
        );
      }
    }

    it(
      'restarts every instance in turn (SIGTERM, drain) without a failed call or a stale read',
      async () => {
        const result = await underLoad(async () => {
          for (let round = 0; round < ROUNDS; round++) {
            for (let i = 0; i < instances.length; i++) {
              const old = instances[i]!;
              old.child.kill('SIGTERM');
              expect(await old.exit).toBe(0);
              expect(old.stdout()).toContain('"draining"');
              // Connections accepted while draining, how often the accept queue was looked at
              // before the listener closed, and connections still open when the instance closed
              // them (each could have been cut under nginx).
              const line = (msg: string) =>
                old
                  .stdout()
                  .split('\n')
                  .find((l) => l.includes(`"msg":"${msg}"`)) ?? '';
              console.log(
                `[fleet] instance :${old.port} ${line('shutting down')} ${line('closing connections')}`,
              );
              instances[i] = await startInstance(old.port);
            }
          }
        });
        report('rolling restart', result);
        // nginx's access log (with times and upstreams) and error log, to place a failure.
        console.log(`[fleet] logs in ${dir}`);
        for (const t of Object.values(result)) {
          expect(t.calls).toBeGreaterThan(100);
          expect(t.failures).toEqual([]);
          expect(t.stale).toBe(0);
        }
      },
      120_000 * ROUNDS,
    );

    it('loses at most the calls in flight on an instance killed with SIGKILL', async () => {
      const result = await underLoad(async (tallies) => {
        const victim = instances[1]!;
        victim.child.kill('SIGKILL');
        await victim.exit;
        // The clients go on through nginx while the instance is gone.
        await settled(tallies);
        instances[1] = await startInstance(victim.port);
      });
      report('kill -9', result);
      // Each client has at most one call in flight.
      const failed = Object.values(result).reduce((sum, t) => sum + t.failures.length, 0);
      expect(failed).toBeLessThanOrEqual(2 * CLIENTS);
      for (const t of Object.values(result)) {
        expect(t.calls).toBeGreaterThan(50);
        expect(t.stale).toBe(0);
      }
    }, 120_000);

    it('reads fresh on one instance after a write on another while Redis is down', async () => {
      const path = join(files, 'outage.txt');
      const call = async (instance: Instance, name: string, args: Record<string, unknown>) => {
        const answer = await modernCall(
          `http://127.0.0.1:${instance.port}/mcp`,
          'tools/call',
          { name, arguments: args },
          { authorization: `Bearer ${TOKEN}` },
        );
        if (answer.body.result === undefined) throw new Error(JSON.stringify(answer.body));
        return textOf(answer.body.result);
      };
      const [a, b] = [instances[0]!, instances[1]!];
      await call(a, 'fs__write_file', { path, content: 'before' });
      // Twice: the second answer is B's cached copy.
      expect(await call(b, 'fs__read_text_file', { path })).toBe('before');
      expect(await call(b, 'fs__read_text_file', { path })).toBe('before');
      redis.process.kill('SIGKILL');
      await new Promise((r) => redis.process.once('exit', r));
      await call(a, 'fs__write_file', { path, content: 'during' });
      // B cannot hear of A's write: it must not answer from its copy.
      expect(await call(b, 'fs__read_text_file', { path })).toBe('during');
      expect(await call(b, 'fs__read_text_file', { path })).toBe('during');
      redis = await startRedis(redisPort);
      await call(a, 'fs__write_file', { path, content: 'after' });
      expect(await call(b, 'fs__read_text_file', { path })).toBe('after');
    });

    it('keeps serving through a Redis restart, and shares rate limits again after it', async () => {
      const result = await underLoad(async (tallies) => {
        redis.process.kill('SIGKILL');
        await settled(tallies);
        redis = await startRedis(redisPort);
      });
      report('redis restart', result);
      for (const t of Object.values(result)) {
        expect(t.calls).toBeGreaterThan(50);
        expect(t.failures).toEqual([]);
        expect(t.stale).toBe(0);
      }
      // Shared again: 3 calls a minute per client in all, whichever instances answer them.
      // Each attempt uses a fresh client, so an attempt made before every instance is back on
      // Redis (and allowed by local counters) does not spend the next one's budget.
      let attempt = 0;
      const shared = await waitFor(
        async () => {
          if (attempt >= PROBES) throw new Error(`rate limits not shared after ${PROBES} tries`);
          const token = `probe-${attempt++}`;
          const outcomes: boolean[] = [];
          for (const instance of [...instances, instances[0]!]) {
            const answer = await modernCall(
              `http://127.0.0.1:${instance.port}/mcp`,
              'tools/call',
              { name: 'fs__list_allowed_directories', arguments: {} },
              { authorization: `Bearer ${token}` },
            );
            outcomes.push(answer.body.result !== undefined && answer.body.result.isError !== true);
          }
          return outcomes.join() === 'true,true,true,false' || undefined;
        },
        'rate limits shared through Redis again',
        60_000,
        500,
      );
      expect(shared).toBe(true);
    }, 120_000);
  },
);

function newTally(): Tally {
  return { calls: 0, failures: [], stale: 0 };
}

/** Waits until every revision's clients completed `SETTLE_CALLS` more calls. */
async function settled(tallies: Record<string, Tally>): Promise<void> {
  const from = Object.fromEntries(Object.entries(tallies).map(([k, t]) => [k, t.calls]));
  await waitFor(
    () =>
      Object.entries(tallies).every(([k, t]) => t.calls >= from[k]! + SETTLE_CALLS) || undefined,
    () =>
      `${SETTLE_CALLS} more calls (${Object.entries(tallies)
        .map(([k, t]) => `${k}: ${t.calls - from[k]!}`)
        .join(', ')})`,
    90_000,
  );
}
