import type { Writable } from 'node:stream';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Structured logs: one JSON object per line (`time`, `level`, `msg`, then the fields). */
export function createJsonLogger(
  stream: Writable,
  options: { level?: LogLevel; base?: Record<string, unknown> } = {},
): Logger {
  const min = ORDER[options.level ?? 'info'];
  const write = (level: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (ORDER[level] < min) return;
    stream.write(
      `${JSON.stringify({ time: new Date().toISOString(), level, msg, ...options.base, ...fields })}\n`,
    );
  };
  return {
    debug: (msg, fields) => write('debug', msg, fields),
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
  };
}
