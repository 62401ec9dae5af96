import { describe, expect, it } from 'vitest';
import { ForwarderConfigError, validateForwarderConfig } from './forwarder-config.js';

function pathOf(config: unknown): string | undefined {
  try {
    validateForwarderConfig(config);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ForwarderConfigError);
    return (error as ForwarderConfigError).path;
  }
}

describe('validateForwarderConfig', () => {
  it('accepts the SPEC example keys', () => {
    expect(
      pathOf({
        policy: {
          allow: ['*'],
          block: [],
          rateLimit: { perMinute: 600, perTool: { fs__write_file: 10 } },
          timeoutMs: 30000,
        },
        auth: { tokens: [{ token: 't', client: 'ci', allow: ['*'] }] },
        cache: { ttlSeconds: 60, maxEntries: 1000, tools: ['memory__read_graph'] },
        redis: 'redis://127.0.0.1:6379',
        chat: { provider: 'openai' },
      }),
    ).toBeUndefined();
  });

  it('names the dotted path of a bad value', () => {
    expect(pathOf({ policy: { rateLimit: { perTool: { fs__write_file: -1 } } } })).toBe(
      'policy.rateLimit.perTool.fs__write_file',
    );
    expect(
      pathOf({
        auth: {
          tokens: [
            { token: 't', client: 'a' },
            { token: 't', client: 'b' },
          ],
        },
      }),
    ).toBe('auth.tokens[1].token');
    expect(pathOf({ policy: { block: ['ok', 3] } })).toBe('policy.block[1]');
    expect(pathOf({ redis: 'localhost:6379' })).toBe('redis');
    expect(pathOf({ cache: { ttlSeconds: 0 } })).toBe('cache.ttlSeconds');
  });
});
