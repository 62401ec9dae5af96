import type { Writable } from 'node:stream';
import { isoTimeNow, lineBatcher } from '@toolwire/forwarder';
import { pino, type DestinationStream } from 'pino';
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

const LEVEL_FIELDS: Record<string, { level: string }> = Object.fromEntries(
  ['trace', 'debug', 'info', 'warn', 'error', 'fatal'].map((label) => [label, { level: label }]),
);

/**
 * stdout, batched: a busy gateway logs an audit line per call, and stdout to a file or a pipe is a
 * synchronous write per line. Lines go out every 10 ms (a write of ~100 lines at 12k calls/s
 * instead of one per event-loop turn), and at exit.
 */
function batched(stream: Writable): DestinationStream {
  const lines = lineBatcher(stream, { flushMs: 10 });
  return { write: (line: string) => lines.write(line) };
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
  const pretty = (stream as Writable & { isTTY?: boolean }).isTTY === true;
  const destination: DestinationStream = pretty
    ? pinoPretty({ colorize: true, sync: true, destination: stream })
    : stream === process.stdout
      ? batched(stream)
      : (stream as unknown as DestinationStream);
  const log = pino(
    {
      level: options.level ?? 'info',
      base: options.base ?? null,
      // pino's isoTime, formatted once per millisecond; the level objects made once.
      timestamp: () => `,"time":"${isoTimeNow()}"`,
      formatters: { level: (label) => LEVEL_FIELDS[label] ?? { level: label } },
      ...(options.redact === false ? {} : { redact: { paths: REDACT, censor: '[redacted]' } }),
    },
    destination,
  );
  const logger: Logger = {
    debug: (msg, fields) => log.debug(fields ?? {}, msg),
    info: (msg, fields) => log.info(fields ?? {}, msg),
    warn: (msg, fields) => log.warn(fields ?? {}, msg),
    error: (msg, fields) => log.error(fields ?? {}, msg),
  };
  // Unredacted JSON lines (the per-call audit line) are written as pino writes them, without the
  // pass over every field pino makes: about 2.5 µs of a gateway call's ~75. `logger.test.ts`
  // holds the two byte for byte on generated lines.
  return options.redact === false && !pretty
    ? { ...logger, info: plainLines(destination, log, options.base) }
    : logger;
}

/** `info` lines as pino formats them (level word, ISO time, base, fields, msg), built directly. */
function plainLines(
  destination: DestinationStream,
  log: { isLevelEnabled(level: string): boolean },
  base: Record<string, unknown> | undefined,
): Logger['info'] {
  const baseText =
    base && Object.keys(base).length > 0 ? `,${JSON.stringify(base).slice(1, -1)}` : '';
  return (msg, fields) => {
    if (!log.isLevelEnabled('info')) return;
    const fieldsText = fields === undefined ? '{}' : JSON.stringify(fields);
    destination.write(
      `{"level":"info","time":"${isoTimeNow()}"${baseText}${fieldsText === '{}' ? '' : `,${fieldsText.slice(1, -1)}`},"msg":${JSON.stringify(msg)}}\n`,
    );
  };
}
