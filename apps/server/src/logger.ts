import type { Writable } from 'node:stream';
import { pino, stdTimeFunctions, type DestinationStream } from 'pino';
import pinoPretty from 'pino-pretty';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Fields that may carry secrets: logged as `[redacted]` wherever they appear (one level deep). */
const REDACT = [
  'authorization',
  'token',
  'apiKey',
  'password',
  'secret',
  'headers.authorization',
  'headers.cookie',
  '*.authorization',
  '*.token',
  '*.apiKey',
  '*.password',
  '*.secret',
];

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** The level from `TOOLWIRE_LOG_LEVEL` (debug, info, warn, error), else `info`. */
export function logLevelFromEnv(env: Record<string, string | undefined> = process.env): LogLevel {
  const wanted = env.TOOLWIRE_LOG_LEVEL?.trim().toLowerCase();
  return (LEVELS as readonly string[]).includes(wanted ?? '') ? (wanted as LogLevel) : 'info';
}

/** One batching destination per stream, so two loggers on stdout keep their lines in order. */
const batchers = new WeakMap<Writable, DestinationStream>();

/**
 * The lines written in one turn of the event loop go out as one write. A busy gateway logs an
 * audit line per call, and stdout to a file or a pipe is a synchronous write per line: that was a
 * fifth of the gateway's CPU at 12k calls/s. Flushed on `setImmediate`, and synchronously at exit
 * (a crash included); only a SIGKILL can lose the lines of the turn it lands in.
 */
function batched(stream: Writable): DestinationStream {
  const existing = batchers.get(stream);
  if (existing) return existing;
  let pending: string[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    stream.write(text);
  };
  process.on('exit', flush);
  const destination: DestinationStream = {
    write(line: string) {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
  };
  batchers.set(stream, destination);
  return destination;
}

/**
 * Logs through pino: one JSON object per line (`level` as a word, ISO `time`, `msg`, then the
 * fields) with secrets redacted; on a terminal (`stream.isTTY`), pino-pretty's readable lines.
 */
export function createJsonLogger(
  stream: Writable,
  options: {
    level?: LogLevel;
    base?: Record<string, unknown>;
    /** Redact the secret-bearing keys (default true); off only for lines whose shape holds none. */
    redact?: boolean;
  } = {},
): Logger {
  const destination: DestinationStream = (stream as Writable & { isTTY?: boolean }).isTTY
    ? pinoPretty({ colorize: true, sync: true, destination: stream })
    : stream === process.stdout
      ? batched(stream)
      : (stream as unknown as DestinationStream);
  const log = pino(
    {
      level: options.level ?? 'info',
      base: options.base ?? null,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      ...(options.redact === false ? {} : { redact: { paths: REDACT, censor: '[redacted]' } }),
    },
    destination,
  );
  return {
    debug: (msg, fields) => log.debug(fields ?? {}, msg),
    info: (msg, fields) => log.info(fields ?? {}, msg),
    warn: (msg, fields) => log.warn(fields ?? {}, msg),
    error: (msg, fields) => log.error(fields ?? {}, msg),
  };
}
