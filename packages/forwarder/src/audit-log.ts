import type { Writable } from 'node:stream';

/** One line per tool call. Arguments are redacted unless the forwarder is told otherwise. */
export interface AuditEntry {
  time: string;
  client: string;
  tool: string;
  upstream: string;
  durationMs: number;
  /** `initiated`: the call has run for a second and is still going (its outcome line follows). */
  outcome: 'ok' | 'tool_error' | 'error' | 'refused' | 'cached' | 'initiated';
  /** The client's network address, when the call came over HTTP. */
  address?: string;
  error?: string;
  arguments?: unknown;
  traceId?: string;
}

export type AuditSink = (entry: AuditEntry) => void;

/**
 * Writes JSON lines to a stream, batched: lines are joined and flushed every 50 ms or 64 KiB,
 * so auditing every call costs one write per batch rather than one per call.
 */
export function createJsonLinesAuditSink(
  stream: Writable,
  options: { flushMs?: number } = {},
): AuditSink & {
  flush(): void;
} {
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
  const sink = ((entry: AuditEntry) => {
    buffer += `${JSON.stringify(entry)}\n`;
    if (buffer.length >= 65_536) flush();
    else if (!timer) {
      timer = setTimeout(flush, options.flushMs ?? 50);
      timer.unref();
    }
  }) as AuditSink & { flush(): void };
  sink.flush = flush;
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
