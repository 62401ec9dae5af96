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

async function start(
  file: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Started> {
  const child = spawn(file, args, {
    cwd: REPO,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false', ...env },
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
  it('prints its phases, a line per built package, a heartbeat and the phase table; SIGTERM to npm stops the gateway it started', async () => {
    // A heartbeat after 300 ms of silence instead of 8 s: every phase that takes longer says so.
    const npm = await start('npm', ['start', '--', '--port', '0'], {
      TOOLWIRE_BOOTSTRAP_SILENCE_MS: '300',
    });
    expect(await gatewayDown(npm.url)).toBe(false);
    await waitFor(
      () => /\[toolwire bootstrap\]\s+gateway start/.test(npm.output()) || undefined,
      'the phase table',
    );
    const setup = npm
      .output()
      .split('\n')
      .filter((line) => line.startsWith('[toolwire bootstrap]'))
      .map((line) => line.slice('[toolwire bootstrap] '.length));
    expect(setup[0]).toMatch(/^node v\d+/);
    expect(setup).toContainEqual(expect.stringMatching(/^installing dependencies \.\.\. /));
    // The install takes longer than the shortened silence: the heartbeat names what pnpm is at.
    expect(setup).toContainEqual(expect.stringMatching(/^ {2}… \d+\.\d s: pnpm /));
    expect(setup).toContainEqual(expect.stringMatching(/^installing dependencies: done in /));
    // The gateway and everything it imports, one line each as turbo finishes it.
    const header = setup.find((line) => line.startsWith('building the gateway ('));
    const count = Number(/\((\d+) packages/.exec(header ?? '')?.[1]);
    expect(count).toBeGreaterThanOrEqual(10);
    const built = setup.filter((line) =>
      /^ {2}@toolwire\/[\w-]+ +(\d+\.\d s|from the cache) {2}\(\d+\/\d+\)$/.test(line),
    );
    expect(built).toHaveLength(count);
    expect(built.map((line) => line.trim().split(/\s+/)[0])).toEqual(
      expect.arrayContaining(['@toolwire/schema', '@toolwire/forwarder', '@toolwire/server']),
    );
    expect(built.at(-1)).toMatch(new RegExp(`\\(${count}/${count}\\)$`));
    expect(setup).toContainEqual(expect.stringMatching(/^building the gateway .*: done in /));
    // The table at the end of the set-up: each phase with its time.
    const table = setup.slice(setup.findIndex((line) => /^set-up in \d+\.\d s:$/.test(line)));
    expect(table.slice(1).map((line) => line.trim().split(/\s{2,}/)[0])).toEqual([
      'Node',
      'pnpm',
      'dependencies',
      'build',
      'gateway start',
    ]);
    // No build chatter: what is printed before the gateway's own lines is npm's header and ours.
    const beforeGateway = npm.output().slice(0, npm.output().indexOf('{"'));
    expect(beforeGateway).not.toMatch(/tsup|Tasks:|Lockfile|Progress:|ESM|DTS/);

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
