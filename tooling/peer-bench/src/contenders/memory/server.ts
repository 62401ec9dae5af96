// What the memory contenders share: the built `toolwire-server` on its embedded default (no
// config file, no flags but the port), in a scratch folder, and its resident memory. It is started
// as a user starts it, through its launcher (bin/toolwire-server.cjs, which sets V8's flags);
// MEMORY_ENTRY=main starts dist/main.js directly, V8's defaults, for comparison.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { freePort, scratch, startProcess } from '../gateway/load.js';

export interface DefaultServer {
  url: string;
  child: ChildProcess;
}

export async function startDefaultServer(): Promise<DefaultServer> {
  const root = dirname(fileURLToPath(import.meta.resolve('@toolwire/server/package.json')));
  const bin =
    process.env.MEMORY_ENTRY === 'main'
      ? join(root, 'dist', 'main.js')
      : join(root, 'bin', 'toolwire-server.cjs');
  const dir = scratch();
  const port = await freePort();
  const child = startProcess(process.execPath, [bin, '--port', String(port)], {
    cwd: dir,
    env: { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') },
  });
  const url = `http://127.0.0.1:${port}`;
  // Ready once both of the default's stdio servers (fs, memory) are up.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return { url, child };
    if (Date.now() > deadline) throw new Error('toolwire-server never became ready');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Resident memory of one process (not its children), in MB. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no VmRSS for ${pid}`);
  return kb / 1024;
}
