import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createJsonLinesAuditSink, isoTimeNow, lineBatcher } from './audit-log.js';

function collect(stream: PassThrough): { writes: string[] } {
  const seen = { writes: [] as string[] };
  stream.on('data', (chunk: Buffer) => seen.writes.push(chunk.toString('utf8')));
  return seen;
}

describe('lineBatcher', () => {
  it('writes the lines of a burst as one write, after flushMs', async () => {
    const stream = new PassThrough();
    const seen = collect(stream);
    const lines = lineBatcher(stream, { flushMs: 20 });
    for (let i = 0; i < 100; i++) lines.write(`line ${i}\n`);
    await new Promise((r) => setImmediate(r));
    expect(seen.writes).toEqual([]);
    await vi.waitFor(() => expect(seen.writes).toHaveLength(1));
    expect(seen.writes[0]!.split('\n').filter(Boolean)).toHaveLength(100);
  });

  it('writes at once past maxBytes, and is one batcher per stream (lines keep their order)', async () => {
    const stream = new PassThrough();
    const seen = collect(stream);
    const first = lineBatcher(stream, { flushMs: 10_000, maxBytes: 100 });
    const second = lineBatcher(stream);
    expect(second).toBe(first);
    first.write('a'.repeat(60) + '\n');
    second.write('b'.repeat(60) + '\n');
    await new Promise((r) => setImmediate(r));
    expect(seen.writes.join('')).toBe(`${'a'.repeat(60)}\n${'b'.repeat(60)}\n`);
  });

  it('writes what is queued when the process exits', () => {
    const module = fileURLToPath(new URL('./audit-log.ts', import.meta.url));
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `const { createJsonLinesAuditSink } = await import(${JSON.stringify(module)});
         const sink = createJsonLinesAuditSink(process.stdout, { flushMs: 60_000 });
         for (let i = 0; i < 3; i++) sink({ time: 't', client: 'c', tool: 'x', upstream: 'u', durationMs: i, outcome: 'ok' });
         process.exit(0);`,
      ],
      { encoding: 'utf8' },
    );
    expect(child.stderr).toBe('');
    expect(
      child.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).durationMs),
    ).toEqual([0, 1, 2]);
  });
});

describe('createJsonLinesAuditSink', () => {
  it('writes one JSON line per entry', async () => {
    const stream = new PassThrough();
    const seen = collect(stream);
    const sink = createJsonLinesAuditSink(stream);
    sink({
      time: isoTimeNow(),
      client: 'c',
      tool: 'x',
      upstream: 'u',
      durationMs: 1,
      outcome: 'ok',
    });
    sink.flush();
    await new Promise((r) => setImmediate(r));
    expect(JSON.parse(seen.writes.join(''))).toMatchObject({ tool: 'x', outcome: 'ok' });
  });
});

describe('isoTimeNow', () => {
  it('is the ISO time of now', () => {
    const before = Date.now();
    const now = Date.parse(isoTimeNow());
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
    expect(isoTimeNow()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
