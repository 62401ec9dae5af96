// `npm start` from the repository root, as a newcomer or a process manager runs it: quiet set-up,
// and the gateway never outlives the command that started it.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SERVER_ROOT } from './global-setup.js';
import { waitFor } from './helpers.js';

const REPO = join(SERVER_ROOT, '..', '..');

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
  exit: Promise<number | null>;
}

const started: Started[] = [];
afterEach(() => {
  for (const { child } of started.splice(0)) {
    // The whole group: npm, its shell and whatever is left of the bootstrap.
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
  }
});

async function start(file: string, args: string[]): Promise<Started> {
  const child = spawn(file, args, {
    cwd: REPO,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await waitFor(
    () => /MCP at (http:\/\/[^\s]+)\/mcp/.exec(output)?.[1],
    'the gateway to start',
    120_000,
  );
  const entry = { child, url, output: () => output, exit };
  started.push(entry);
  return entry;
}

async function gatewayDown(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/healthz`);
    return false;
  } catch {
    return true;
  }
}

describe('npm start', () => {
  it('prints one line per phase, and SIGTERM to npm stops the gateway it started', async () => {
    const npm = await start('npm', ['start', '--', '--port', '0']);
    expect(await gatewayDown(npm.url)).toBe(false);
    const setup = npm
      .output()
      .split('\n')
      .filter((line) => line.startsWith('[toolwire bootstrap]'));
    expect(setup).toEqual([
      expect.stringMatching(/^\[toolwire bootstrap\] node v\d+/),
      expect.stringMatching(/^\[toolwire bootstrap\] installing dependencies \.\.\. done in /),
      expect.stringMatching(/^\[toolwire bootstrap\] building \.\.\. done in /),
    ]);
    // No build chatter: what is printed before the gateway's own lines is npm's header and ours.
    const beforeGateway = npm.output().slice(0, npm.output().indexOf('{"time"'));
    expect(beforeGateway).not.toMatch(/turbo|tsup|Tasks:|Lockfile|Progress:/i);

    process.kill(npm.child.pid!, 'SIGTERM');
    await waitFor(
      () => npm.output().includes('"msg":"stopped"') || undefined,
      'the gateway to stop gracefully',
      20_000,
    );
    expect(await gatewayDown(npm.url)).toBe(true);
  });

  it('passes SIGHUP (reload) and SIGINT (graceful stop) on to the gateway', async () => {
    const bootstrap = await start(process.execPath, [
      join(REPO, 'tooling', 'bootstrap', 'bootstrap.mjs'),
      'start',
      '--port',
      '0',
    ]);
    process.kill(bootstrap.child.pid!, 'SIGHUP');
    await waitFor(
      () => bootstrap.output().includes('"msg":"config reloaded"') || undefined,
      'the reload',
    );
    process.kill(bootstrap.child.pid!, 'SIGINT');
    expect(await bootstrap.exit).toBe(0);
    expect(bootstrap.output()).toContain('"msg":"stopped"');
    expect(await gatewayDown(bootstrap.url)).toBe(true);
  });
});
