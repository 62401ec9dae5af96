import { executeToolCalls } from '@toolwire/schema';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './errors.js';
import { createNativeTools, nativeTools } from './native-tools.js';

async function run(name: string, args: unknown) {
  const [result] = await executeToolCalls(
    [{ id: 'c1', name, arguments: args }],
    createNativeTools(),
  );
  return result!;
}

describe('nativeTools', () => {
  it('hashes with sha256 and md5 and encodes base64', async () => {
    expect((await run('hash', { data: 'abc', algorithm: 'sha256' })).structuredContent).toEqual({
      algorithm: 'sha256',
      result: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    });
    expect((await run('hash', { data: 'abc', algorithm: 'md5' })).structuredContent).toMatchObject({
      result: '900150983cd24fb0d6963f7d28e17f72',
    });
    expect(
      (await run('hash', { data: 'héllo', algorithm: 'base64' })).structuredContent,
    ).toMatchObject({ result: 'aMOpbGxv' });
  });

  it('rejects an unknown hash algorithm before running', async () => {
    const result = await run('hash', { data: 'abc', algorithm: 'sha1' });
    expect(result.isError).toBe(true);
    expect(result.error?.category).toBe('invalidArguments');
  });

  it('gives the current UTC time and parses time strings', async () => {
    const now = (await run('time', { name: 'get_time_utc' })).structuredContent as {
      utc: string;
      unixSeconds: number;
    };
    expect(now.utc).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(
      (await run('time', { name: 'parse_time', time_string: '2026-07-28T12:00:00+02:00' }))
        .structuredContent,
    ).toEqual({
      utc: '2026-07-28T10:00:00.000Z',
      unixSeconds: 1785232800,
      unixMilliseconds: 1785232800000,
    });
    expect(
      (await run('time', { name: 'parse_time', time_string: '1785232800' })).structuredContent,
    ).toMatchObject({ utc: '2026-07-28T10:00:00.000Z' });
  });

  it('explains an unparseable or missing time_string', async () => {
    const bad = await run('time', { name: 'parse_time', time_string: 'next tuesday-ish' });
    expect(bad.isError).toBe(true);
    expect(bad.error?.category).toBe('invalidArguments');
    expect((await run('time', { name: 'parse_time' })).error?.message).toContain(
      'needs time_string',
    );
  });

  it('calculates with a real parser and reports bad expressions as invalid arguments', async () => {
    expect((await run('calculate', { expression: '2 * (3 + 4) ^ 2' })).structuredContent).toEqual({
      expression: '2 * (3 + 4) ^ 2',
      result: 98,
    });
    const bad = await run('calculate', { expression: 'require(1)' });
    expect(bad.isError).toBe(true);
    expect(bad.error?.message).toContain('unknown name "require"');
  });

  it('keeps the seed argument names and plain tool names', () => {
    expect(Object.keys(nativeTools)).toEqual(['hash', 'time', 'calculate']);
    expect(nativeTools.hash.inputSchema.required).toEqual(['data', 'algorithm']);
    expect(nativeTools.time.inputSchema.properties?.name?.enum).toEqual([
      'get_time_utc',
      'parse_time',
    ]);
    expect(nativeTools.calculate.inputSchema.required).toEqual(['expression']);
  });
});

describe('createNativeTools', () => {
  it('returns the named tools and rejects unknown names with a ConfigError', () => {
    expect(createNativeTools(['calculate']).map((t) => t.name)).toEqual(['calculate']);
    expect(() => createNativeTools(['weather'])).toThrow(ConfigError);
  });
});
