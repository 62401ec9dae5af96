import type { Readable, Writable } from 'node:stream';
import { createColors, type Colors } from './output.js';

/** What every command gets: streams, environment and the global flags. */
export interface CliContext {
  stdin: Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
  cwd: string;
  /** Colours for stdout and for stderr (each on only when that stream is a terminal). */
  out: Colors;
  err: Colors;
}

export interface GlobalOptions {
  config?: string;
  json?: boolean;
}

export function createContext(options: Partial<CliContext> = {}): CliContext {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const env = options.env ?? process.env;
  return {
    stdin: options.stdin ?? process.stdin,
    stdout,
    stderr,
    env,
    cwd: options.cwd ?? process.cwd(),
    out: options.out ?? createColors(stdout, env),
    err: options.err ?? createColors(stderr, env),
  };
}

export function writeLine(stream: Writable, text = ''): void {
  stream.write(`${text}\n`);
}
