import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createJsonLogger, logLevelFromEnv } from './logger.js';

function capture(): { stream: PassThrough; lines: () => Array<Record<string, unknown>> } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return {
    stream,
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('createJsonLogger', () => {
  it('writes JSON lines with the level as a word, ISO time, msg and fields, secrets redacted', () => {
    const out = capture();
    const logger = createJsonLogger(out.stream, { base: { service: 'toolwire-server' } });
    logger.info('upstream added', {
      server: 'remote',
      headers: { authorization: 'Bearer s3cret' },
      token: 'gw-token',
    });
    logger.debug('not shown at info');
    const [line] = out.lines();
    expect(out.lines()).toHaveLength(1);
    expect(line).toMatchObject({
      level: 'info',
      msg: 'upstream added',
      service: 'toolwire-server',
      server: 'remote',
      headers: { authorization: '[redacted]' },
      token: '[redacted]',
    });
    expect(new Date(String(line!.time)).toISOString()).toBe(line!.time);
  });

  it('honours the level, also from TOOLWIRE_LOG_LEVEL', () => {
    const out = capture();
    const logger = createJsonLogger(out.stream, {
      level: logLevelFromEnv({ TOOLWIRE_LOG_LEVEL: 'warn' }),
    });
    logger.info('hidden');
    logger.warn('shown');
    expect(out.lines().map((l) => l.msg)).toEqual(['shown']);
    expect(logLevelFromEnv({ TOOLWIRE_LOG_LEVEL: 'loud' })).toBe('info');
  });
});
