import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { serverEntry } from '@toolwire/mcp/node';
import { loopbackPreloadPath } from '@toolwire/testing/mcp';
import { SERVER_ROOT } from '../global-setup.js';
import { freePort, waitFor } from '../helpers.js';

const ENTRY = serverEntry(
  '@modelcontextprotocol/server-everything',
  createRequire(join(SERVER_ROOT, 'package.json')).resolve,
);

/** The protocol's reference server over streamable HTTP on a loopback port. */
export interface Everything {
  url: string;
  port: number;
  /** Kills the process (SIGKILL: an upstream that dies, not one that shuts down). */
  kill(): Promise<void>;
  /** Starts it again on the same port (a fresh process: every session and task is gone). */
  restart(): Promise<void>;
  output(): string;
}

export async function startEverything(port?: number): Promise<Everything> {
  const bound = port ?? (await freePort());
  let child: ChildProcess;
  let out = '';
  const start = async (): Promise<void> => {
    out = '';
    child = spawn(process.execPath, ['--import', loopbackPreloadPath(), ENTRY, 'streamableHttp'], {
      env: { ...process.env, PORT: String(bound) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await waitFor(
      () => /listening on port/.test(out) || undefined,
      () => `server-everything to listen (output: ${out})`,
    );
  };
  await start();
  const kill = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    port: bound,
    kill,
    restart: async () => {
      await kill();
      await start();
    },
    output: () => out,
  };
}
