// What the CLI-start contenders share: the built `toolwire` binary, a scratch HOME per process (its
// own tool cache and memory file), and timing whole commands from spawn to exit.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const cliManifest = createRequire(import.meta.url).resolve('@toolwire/cli/package.json');
const { bin } = JSON.parse(readFileSync(cliManifest, 'utf8')) as { bin: Record<string, string> };
/** The `toolwire` binary as installed: its launcher, which loads the build. */
export const cliBin = join(dirname(cliManifest), bin['toolwire']!);
/** Resolves packages as the CLI does (its embedded default's MCP servers are its own dependencies). */
export const cliRequire = createRequire(cliManifest);

/** A scratch working directory and HOME: `config` becomes its toolwire.config.json when given. */
export function scratchHome(config?: unknown): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'peer-bench-cli-'));
  mkdirSync(join(dir, 'cache'));
  if (config !== undefined)
    writeFileSync(join(dir, 'toolwire.config.json'), JSON.stringify(config));
  return { dir, env: { ...process.env, HOME: dir, XDG_CACHE_HOME: join(dir, 'cache') } };
}

/** Runs a command to its exit; returns the wall time from spawn to exit in ms. */
export function timeCommand(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const elapsed = performance.now() - started;
      if (code === 0) resolve(elapsed);
      else reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.slice(-1000)}`));
    });
    child.stdin.end(options.input ?? '');
  });
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
