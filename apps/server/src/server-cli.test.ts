import { describe, expect, it } from 'vitest';
import { UsageError } from '@toolwire/schema';
import { parseServerArgs } from './server-cli.js';

describe('parseServerArgs', () => {
  it('defaults to 127.0.0.1:8787 and the default config resolution', () => {
    expect(parseServerArgs([], {})).toEqual({
      host: '127.0.0.1',
      port: 8787,
      drainMs: 5000,
      help: false,
    });
  });

  it('reads --config, --host, --port and --allowed-hosts (or TOOLWIRE_ALLOWED_HOSTS)', () => {
    expect(
      parseServerArgs(
        [
          '--config',
          'x.json',
          '--host',
          '0.0.0.0',
          '--port',
          '0',
          '--allowed-hosts',
          'A.example, b',
        ],
        {},
      ),
    ).toEqual({
      drainMs: 5000,
      configPath: 'x.json',
      host: '0.0.0.0',
      port: 0,
      allowedHosts: ['a.example', 'b'],
      help: false,
    });
    expect(parseServerArgs([], { TOOLWIRE_ALLOWED_HOSTS: '*' }).allowedHosts).toBe('*');
    expect(parseServerArgs(['--request-timeout-ms', '45000'], {}).requestTimeoutMs).toBe(45_000);
  });

  it('refuses unknown flags and bad ports', () => {
    expect(() => parseServerArgs(['--nope'], {})).toThrow(UsageError);
    expect(() => parseServerArgs(['--port', '70000'], {})).toThrow(/--port/);
    expect(() => parseServerArgs(['stray'], {})).toThrow(UsageError);
    expect(() => parseServerArgs(['--request-timeout-ms', 'soon'], {})).toThrow(
      /--request-timeout-ms/,
    );
  });
});
