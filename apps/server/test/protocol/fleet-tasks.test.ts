// Tasks of a fleet: two `toolwire-server` processes on one Redis behind nginx, the reference
// server behind them. A task created through one instance is polled and cancelled through the
// other (the first one stopped), survives the first one's restart, and stays its token's.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN_DIR } from '../global-setup.js';
import { freePort, startRedis, waitFor } from '../helpers.js';
import { sdkV1Client, type ProtocolClient } from './clients.js';
import { startEverything, type Everything } from './everything.js';

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path));
const REDIS = spawnSync('redis-server', ['--version']).status === 0;
const BIN = join(BIN_DIR, 'main.js');

describe.skipIf((!NGINX || !REDIS) && !process.env.CI)(
  `tasks across a fleet of two instances behind nginx on one Redis${NGINX && REDIS ? '' : ' (skipped: Debian packages "nginx-light" and "redis-server" are needed)'}`,
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-fleet-tasks-'));
    const configPath = join(dir, 'toolwire.config.json');
    let redis: { url: string; process: ChildProcess };
    let everything: Everything;
    let nginx: ChildProcess;
    let nginxUrl: string;
    const ports: number[] = [];
    const children = new Map<number, ChildProcess>();

    async function startInstance(port: number): Promise<void> {
      const child = spawn(process.execPath, [BIN, '--config', configPath, '--port', String(port)], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, XDG_CACHE_HOME: join(dir, `cache-${port}`) },
      });
      let err = '';
      child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
      children.set(port, child);
      await waitFor(
        () => err.includes('MCP at') || undefined,
        () => `instance :${port} (${err})`,
      );
    }

    async function stopInstance(port: number): Promise<void> {
      const child = children.get(port)!;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }

    beforeAll(async () => {
      redis = await startRedis();
      everything = await startEverything();
      writeFileSync(
        configPath,
        JSON.stringify({
          mcpServers: { everything: { url: everything.url } },
          redis: redis.url,
          auth: {
            tokens: [
              { token: 'token-a', client: 'alice', allow: ['*'] },
              { token: 'token-b', client: 'bob', allow: ['*'] },
            ],
          },
        }),
      );
      ports.push(await freePort(), await freePort());
      for (const port of ports) await startInstance(port);
      const listen = await freePort();
      const conf = join(dir, 'nginx.conf');
      writeFileSync(
        conf,
        [
          'daemon off;',
          'worker_processes 1;',
          `pid ${dir}/nginx.pid;`,
          `error_log ${dir}/nginx-error.log warn;`,
          'events { worker_connections 256; }',
          'http {',
          `  access_log off;`,
          ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
            (kind) => `  ${kind}_temp_path ${dir}/${kind}-temp;`,
          ),
          `  upstream toolwire { ${ports.map((p) => `server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join(' ')} }`,
          `  server { listen 127.0.0.1:${listen};`,
          '    location / { proxy_pass http://toolwire; proxy_http_version 1.1;',
          '      proxy_set_header Connection ""; proxy_set_header Host $host;',
          '      proxy_buffering off; proxy_read_timeout 1h;',
          '      proxy_next_upstream error timeout http_502 http_503; } }',
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
      for (const child of children.values()) child.kill('SIGKILL');
      nginx?.kill('SIGQUIT');
      await everything?.kill();
      redis?.process.kill('SIGKILL');
    });

    const as = (url: string, token: string): Promise<ProtocolClient> =>
      sdkV1Client(`${url}/mcp`, { authorization: `Bearer ${token}` });

    it("a task created on one instance is polled and cancelled through another, survives a restart, and is its token's only", async () => {
      const [first] = ports as [number, number];
      const creator = await as(`http://127.0.0.1:${first}`, 'token-a');
      // Ambiguous: the task waits for an answer (input_required) until it is cancelled.
      const task = await creator.tasks.start('everything__simulate-research-query', {
        topic: 'fleet',
        ambiguous: true,
      });
      await creator.close();
      expect(task.taskId).toMatch(/^tw-/);

      // The creating instance stops: nginx sends everything to the other one.
      await stopInstance(first);
      const alice = await as(nginxUrl, 'token-a');
      const bob = await as(nginxUrl, 'token-b');
      try {
        expect((await alice.tasks.get(task.taskId)).status).toMatch(/working|input_required/);
        expect((await alice.tasks.list()).map((t) => t.taskId)).toContain(task.taskId);
        await expect(bob.tasks.get(task.taskId)).rejects.toMatchObject({ code: -32602 });
        await expect(bob.request('tasks/cancel', { taskId: task.taskId })).rejects.toMatchObject({
          code: -32602,
        });
        await alice.tasks.cancel(task.taskId);
        expect((await alice.tasks.get(task.taskId)).status).toBe('cancelled');
      } finally {
        await alice.close();
        await bob.close();
      }

      // Back up: the restarted instance knows the task from Redis.
      await startInstance(first);
      const again = await as(`http://127.0.0.1:${first}`, 'token-a');
      try {
        expect((await again.tasks.get(task.taskId)).status).toBe('cancelled');
      } finally {
        await again.close();
      }
    });
  },
);
