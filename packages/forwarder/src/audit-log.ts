import type { Writable } from 'node:stream';

/** One line per tool call. Arguments are redacted unless the forwarder is told otherwise. */
export interface AuditEntry {
  time: string;
  client: string;
  tool: string;
  upstream: string;
  durationMs: number;
  /**
   * `initiated`: the call has run for a second and is still going (its outcome line follows, with
   * the same `callId`). `cancelled`: the caller went away or cancelled it before it finished.
   */
  outcome: 'ok' | 'tool_error' | 'error' | 'refused' | 'cached' | 'cancelled' | 'initiated';
  /**
   * Set on the lines of a call that ran for more than a second: its `initiated` line and its
   * outcome line carry the same number (and `runningCalls()` lists it meanwhile).
   */
  callId?: number;
  /** The client's network address, when the call came over HTTP. */
  address?: string;
  error?: string;
  arguments?: unknown;
  traceId?: string;
  /**
   * What the line is about: a tool call (absent), a server-to-client request an upstream sent a
   * client (`tool` is then its method), or a task (created, polled, cancelled, failed).
   */
  event?: 'server_request' | 'task';
  /** The JSON-RPC method of a `server_request` or `task` line. */
  method?: string;
  /** The task's id as the client sees it. */
  taskId?: string;
}

export type AuditSink = (entry: AuditEntry) => void;

let isoMs = Number.NaN;
let isoText = '';

/**
 * `new Date().toISOString()`, formatted once per millisecond: a busy gateway stamps thousands of
 * audit and log lines a second, and the formatting was a measurable part of each call.
 */
export function isoTimeNow(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoMs = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}

/** Lines on their way to a stream, written together. */
export interface LineBatcher {
  /** Queues one line (with its newline). */
  write(line: string): void;
  /** Writes what is queued now. */
  flush(): void;
}

const batchers = new WeakMap<Writable, LineBatcher>();

/**
 * The one batcher of `stream` (two loggers on one stream share it, so their lines keep their
 * order; the first caller's options hold): lines are joined and written every `flushMs` (default
 * 50) or `maxBytes` (default 64 KiB), and synchronously when the process exits (a crash included;
 * only a SIGKILL loses what is queued). A write per line was a fifth of a busy gateway's CPU.
 */
export function lineBatcher(
  stream: Writable,
  options: { flushMs?: number; maxBytes?: number } = {},
): LineBatcher {
  const existing = batchers.get(stream);
  if (existing) return existing;
  const flushMs = options.flushMs ?? 50;
  const maxBytes = options.maxBytes ?? 65_536;
  let buffer = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (buffer === '') return;
    const out = buffer;
    buffer = '';
    stream.write(out);
  };
  process.on('exit', flush);
  const batcher: LineBatcher = {
    write(line) {
      buffer += line;
      if (buffer.length >= maxBytes) flush();
      else if (!timer) {
        timer = setTimeout(flush, flushMs);
        timer.unref();
      }
    },
    flush,
  };
  batchers.set(stream, batcher);
  return batcher;
}

/** Writes each entry as a JSON line to `stream`, batched (`lineBatcher`). */
export function createJsonLinesAuditSink(
  stream: Writable,
  options: { flushMs?: number } = {},
): AuditSink & {
  flush(): void;
} {
  const lines = lineBatcher(stream, options);
  const sink = ((entry: AuditEntry) => lines.write(`${JSON.stringify(entry)}\n`)) as AuditSink & {
    flush(): void;
  };
  sink.flush = lines.flush;
  return sink;
}

/** Replaces every leaf value by its type, keeping the shape visible for debugging. */
export function redactArguments(args: unknown): unknown {
  if (Array.isArray(args)) return args.map(redactArguments);
  if (args !== null && typeof args === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(args)) out[key] = redactArguments(value);
    return out;
  }
  return args === null ? null : `[${typeof args}]`;
}
