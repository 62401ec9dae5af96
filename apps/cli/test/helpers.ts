import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const CLI_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where global-setup builds the binary the tests drive. */
export const BIN_DIR = join(CLI_ROOT, 'node_modules', '.cache', 'toolwire-cli-test');
export const BIN = join(BIN_DIR, 'main.js');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Sandbox {
  /** A fresh HOME with XDG_CACHE_HOME inside it. */
  home: string;
  cache: string;
  /** The environment a user would have: PATH, HOME, XDG_CACHE_HOME and nothing else. */
  env: Record<string, string>;
  cleanup(): void;
}

export function createSandbox(): Sandbox {
  const home = mkdtempSync(join(tmpdir(), 'toolwire-cli-'));
  const cache = join(home, '.cache');
  return {
    home,
    cache,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      XDG_CACHE_HOME: cache,
      // No real Ollama may answer from the test machine: point the probe at a closed port.
      OLLAMA_HOST: 'http://127.0.0.1:9',
    },
    cleanup: () => rmSync(home, { recursive: true, force: true }),
  };
}

/** Runs `node <built binary> ...args` as a user would, asynchronously (fake servers live in this process). */
export function runToolwire(
  args: string[],
  options: {
    env: Record<string, string>;
    cwd?: string;
    input?: string;
    timeoutMs?: number;
    /** Called with the process id as soon as the binary is started. */
    onSpawn?: (pid: number) => void;
  },
): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? options.env.HOME,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`toolwire ${args.join(' ')} did not exit; stderr so far: ${stderr}`));
    }, options.timeoutMs ?? 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** `--config` for the native tools only: no MCP server to start, so the test stays quick. */
export function nativeOnlyConfig(home: string): string[] {
  const file = join(home, 'native.json');
  writeFileSync(file, JSON.stringify({ nativeTools: ['hash', 'time', 'calculate'] }));
  return ['--config', file];
}

/** Exactly one line on stderr, no stack trace; returns it. */
export function expectOneLineError(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
  return lines[0]!;
}
