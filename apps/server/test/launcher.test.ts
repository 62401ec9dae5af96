// The `toolwire-server` launcher (bin/toolwire-server.cjs) as a user's shell starts it: it starts
// V8 with a 16 MB semi-space (what keeps resident memory flat under a long run of calls, the peer
// bench's memory layer) in the same process, and leaves a flag of the user's own alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN_DIR, SERVER_ROOT } from './global-setup.js';
import { waitFor } from './helpers.js';

// The package as installed: bin/, package.json, and dist/ (the tests' own build of main.js).
const PACKAGE = join(SERVER_ROOT, 'node_modules', '.cache', 'toolwire-server-test-package');
const LAUNCHER = join(PACKAGE, 'bin', 'toolwire-server.cjs');

const children: ChildProcess[] = [];

async function launch(env: Record<string, string> = {}): Promise<{ pid: number; url: string }> {
  const child = spawn(process.execPath, [LAUNCHER, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const url = await waitFor(
    () => /MCP at (http:\/\/[^\s]+)\/mcp/.exec(err)?.[1],
    `the server to start (stderr: ${err})`,
  );
  return { pid: child.pid!, url };
}

function commandLine(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

describe.skipIf(process.platform !== 'linux')('toolwire-server launcher', () => {
  beforeAll(() => {
    rmSync(PACKAGE, { recursive: true, force: true });
    mkdirSync(join(PACKAGE, 'bin'), { recursive: true });
    copyFileSync(join(SERVER_ROOT, 'bin', 'toolwire-server.cjs'), LAUNCHER);
    copyFileSync(join(SERVER_ROOT, 'package.json'), join(PACKAGE, 'package.json'));
    symlinkSync(BIN_DIR, join(PACKAGE, 'dist'));
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  });
  afterAll(() => rmSync(PACKAGE, { recursive: true, force: true }));

  it('runs the gateway with a 16 MB semi-space, in the process it was started as', async () => {
    const { pid, url } = await launch();
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    // Same pid: the process replaced itself (signals from a process manager reach the gateway).
    const argv = commandLine(pid);
    expect(argv).toContain('--max-semi-space-size=16');
    expect(argv.filter((arg) => arg.startsWith('--max-semi-space-size'))).toHaveLength(1);
    expect(argv.at(-3)).toBe(LAUNCHER);
  });

  it("keeps the user's own semi-space size from NODE_OPTIONS", async () => {
    const { pid } = await launch({ NODE_OPTIONS: '--max-semi-space-size=8' });
    expect(commandLine(pid).some((arg) => arg.startsWith('--max-semi-space-size'))).toBe(false);
  });
});
