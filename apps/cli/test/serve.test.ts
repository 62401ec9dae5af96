import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, createSandbox, runToolwire, type Sandbox } from './helpers.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.cleanup());

describe('toolwire serve', () => {
  it('runs the gateway on the embedded default and stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], {
      cwd: sandbox.home,
      env: sandbox.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let stderr = '';
    child.stdout.resume();
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no address announced: ${stderr}`)), 20_000);
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        const match = /MCP at (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stderr);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    try {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const ready = (await (await fetch(`${url}/readyz`)).json()) as {
        servers: Array<{ name: string; status: string }>;
      };
      expect(ready.servers.map((server) => [server.name, server.status])).toEqual([
        ['fs', 'ok'],
        ['memory', 'ok'],
      ]);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('rejects a bad port and a bad config with exit 2', async () => {
    const port = await runToolwire(['serve', '--port', 'http'], { env: sandbox.env });
    expect(port.code).toBe(2);
    expect(port.stderr.trim().split('\n')).toHaveLength(1);

    const file = join(sandbox.home, 'bad.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { fs: { command: 'node', args: [1] } } }));
    const config = await runToolwire(['serve', '--config', file, '--port', '0'], {
      env: sandbox.env,
    });
    expect(config.code).toBe(2);
    expect(config.stderr).toContain('mcpServers.fs.args[0]');
  });
});
