import { PassThrough } from 'node:stream';
import { pick, seededRandom, testSeed } from '@toolwire/testing/random';
import { pino, stdTimeFunctions } from 'pino';
import { describe, expect, it } from 'vitest';
import { createJsonLogger, logLevelFromEnv } from './logger.js';

function capture(): {
  stream: PassThrough;
  raw: () => string;
  lines: () => Array<Record<string, unknown>>;
} {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return {
    stream,
    raw: () => text,
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

describe('createJsonLogger with redact: false', () => {
  it('writes the same bytes as pino for the same lines (2,000 generated)', () => {
    const next = seededRandom(testSeed(20261124));
    const text = (): string =>
      pick(next, [
        '',
        'calculate',
        'fx__echo',
        'quote " back\\ slash',
        'é ✓ 𝄞',
        'tab\there',
        '\u0000\u001f',
        'x'.repeat(60),
      ]);
    const value = (depth = 0): unknown =>
      depth > 2 || next() < 0.5
        ? pick(next, [text(), 0, 1.25, -3, 1e21, true, false, null, undefined])
        : next() < 0.3
          ? [value(depth + 1), value(depth + 1)]
          : { [text()]: value(depth + 1), type: value(depth + 1) };
    for (let i = 0; i < 2000; i++) {
      const fields: Record<string, unknown> = {
        client: text(),
        tool: text(),
        upstream: text(),
        durationMs: pick(next, [0, 0.123, 12.5, 1000]),
        outcome: pick(next, ['ok', 'error', 'cached']),
        arguments: value(),
        event: 'tool_call',
      };
      if (next() < 0.3) fields.error = text();
      if (next() < 0.3) fields.address = undefined;
      const ours = capture();
      const theirs = capture();
      const base = { service: 'toolwire-server' };
      createJsonLogger(ours.stream, { base, redact: false }).info('tool call', fields);
      pino(
        {
          base,
          timestamp: stdTimeFunctions.isoTime,
          formatters: { level: (label) => ({ level: label }) },
        },
        theirs.stream,
      ).info(fields, 'tool call');
      const [a, b] = [ours.raw(), theirs.raw()];
      // The time may tick between the two lines: compare without it.
      const untimed = (line: string) => line.replace(/"time":"[^"]*"/, '"time":""');
      expect(untimed(a)).toBe(untimed(b));
    }
  });
});
