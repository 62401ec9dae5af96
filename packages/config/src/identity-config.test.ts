import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { validateConfig } from './validate-config.js';

function problem(value: unknown): { path: string; problem: string } {
  try {
    validateConfig(value);
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    const { path, problem: text } = error as ConfigError;
    return { path, problem: text };
  }
  throw new Error('expected a ConfigError');
}

const jwt = { issuer: 'https://login.example.com', audience: 'https://gw.example.com/mcp' };
const remote = (auth: unknown, extra: Record<string, unknown> = {}) => ({
  mcpServers: { crm: { url: 'https://crm.example.com/mcp', auth } },
  auth: { jwt },
  ...extra,
});

describe('the identity keys of toolwire.config.json', () => {
  it('accepts auth.jwt, the upstream identity modes and policy.pinning', () => {
    expect(() =>
      validateConfig({
        mcpServers: {
          crm: { url: 'https://crm.example.com/mcp', auth: { type: 'passthrough' } },
          erp: {
            url: 'https://erp.example.com/mcp',
            auth: { type: 'token-exchange', clientId: 'gw', scopes: ['erp'] },
          },
          files: { url: 'https://files.example.com/mcp', auth: { type: 'oauth', perUser: true } },
        },
        auth: {
          jwt: { ...jwt, scopes: { 'tools:all': ['*'] }, clockSkewSeconds: 10 },
          userTokens: { encryptionKey: 'sixteen or more characters' },
        },
        policy: { pinning: { mode: 'hold', file: './pins.json' } },
      }),
    ).not.toThrow();
  });

  it('names the key of the auth branch its type picks', () => {
    expect(problem(remote({ type: 'passthrough', clientId: 'x' }))).toEqual({
      path: 'mcpServers.crm.auth.clientId',
      problem: 'unknown key',
    });
    expect(problem(remote({ type: 'token-exchange' }))).toEqual({
      path: 'mcpServers.crm.auth.clientId',
      problem: 'is required but missing',
    });
    expect(problem(remote({ type: 'magic' }))).toEqual({
      path: 'mcpServers.crm.auth.type',
      problem: 'must be one of oauth, passthrough, token-exchange',
    });
  });

  it('needs auth.jwt for modes that act as the caller, and a key for per-user tokens', () => {
    expect(
      problem({
        mcpServers: { crm: { url: 'https://crm.example.com/mcp', auth: { type: 'passthrough' } } },
      }),
    ).toEqual({
      path: 'mcpServers.crm.auth',
      problem: '"passthrough" needs auth.jwt (the callers\' access tokens)',
    });
    expect(problem(remote({ type: 'oauth', perUser: true }))).toEqual({
      path: 'mcpServers.crm.auth.perUser',
      problem: "needs auth.userTokens.encryptionKey (users' tokens are kept encrypted)",
    });
    expect(
      problem(
        remote(
          { type: 'passthrough' },
          {
            mcpServers: {
              crm: {
                url: 'https://crm.example.com/sse',
                transport: 'sse',
                auth: { type: 'passthrough' },
              },
            },
          },
        ),
      ).problem,
    ).toContain('needs a streamable HTTP server');
  });

  it('names auth.jwt keys and pinning modes', () => {
    expect(problem({ auth: { jwt: { issuer: 'https://x.example' } } }).path).toBe(
      'auth.jwt.audience',
    );
    expect(problem({ auth: { jwt: { ...jwt, audiance: 'x' } } })).toMatchObject({
      path: 'auth.jwt.audiance',
      problem: expect.stringContaining('did you mean "audience"'),
    });
    expect(problem({ policy: { pinning: { mode: 'block' } } }).path).toBe('policy.pinning.mode');
  });
});
