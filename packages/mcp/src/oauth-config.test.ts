import { describe, expect, it } from 'vitest';
import { loadConfig } from '@toolwire/config/node';
import { ConfigError } from './errors.js';

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const remote = (auth: unknown) => ({
  mcpServers: { api: { url: 'https://example.com/mcp', auth } },
});

describe('loadConfig (mcpServers.<name>.auth)', () => {
  it('accepts an OAuth entry with every field and expands ${VAR} in it', () => {
    const config = loadConfig(
      remote({
        type: 'oauth',
        clientId: '${CLIENT_ID}',
        clientSecret: '${CLIENT_SECRET:-fallback}',
        scopes: ['tools:read', 'tools:call'],
        redirectUrl: 'http://127.0.0.1:${PORT}/callback',
      }),
      { env: { CLIENT_ID: 'toolwire-cli', PORT: '40123' } },
    );
    expect(config.mcpServers?.api?.auth).toEqual({
      type: 'oauth',
      clientId: 'toolwire-cli',
      clientSecret: 'fallback',
      scopes: ['tools:read', 'tools:call'],
      redirectUrl: 'http://127.0.0.1:40123/callback',
    });
  });

  it('accepts the minimal entry (dynamic client registration)', () => {
    expect(loadConfig(remote({ type: 'oauth' })).mcpServers?.api?.auth).toEqual({ type: 'oauth' });
  });

  it('names the path of a wrong type, an unknown key and a bad redirect URL', () => {
    expect(configError(() => loadConfig(remote({ type: 'basic' }))).path).toBe(
      'mcpServers.api.auth.type',
    );
    const unknown = configError(() => loadConfig(remote({ type: 'oauth', clientid: 'x' })));
    expect(unknown.path).toBe('mcpServers.api.auth.clientid');
    expect(unknown.message).toContain('did you mean "clientId"');
    expect(
      configError(() => loadConfig(remote({ type: 'oauth', redirectUrl: 'callback' }))).path,
    ).toBe('mcpServers.api.auth.redirectUrl');
    expect(configError(() => loadConfig(remote({ type: 'oauth', scopes: ['a b'] }))).path).toBe(
      'mcpServers.api.auth.scopes[0]',
    );
    // A missing "type" is reported at the key that is missing.
    expect(configError(() => loadConfig(remote({ clientId: 'x' }))).path).toBe(
      'mcpServers.api.auth.type',
    );
  });

  it('rejects a client secret without a client id', () => {
    const error = configError(() => loadConfig(remote({ type: 'oauth', clientSecret: 's' })));
    expect(error.path).toBe('mcpServers.api.auth.clientSecret');
    expect(error.problem).toContain('needs "clientId"');
  });

  it('accepts client_credentials with a client id and secret, and names what it misses', () => {
    // `auth` is a union by `type` (oauth, passthrough, token-exchange): read `grant` of the oauth one.
    const auth = loadConfig(
      remote({ type: 'oauth', grant: 'client_credentials', clientId: 'a', clientSecret: 'b' }),
    ).mcpServers?.api?.auth;
    expect(auth?.type === 'oauth' ? auth.grant : undefined).toBe('client_credentials');
    const error = configError(() =>
      loadConfig(remote({ type: 'oauth', grant: 'client_credentials', clientId: 'a' })),
    );
    expect(error.path).toBe('mcpServers.api.auth.grant');
    expect(error.problem).toContain('"clientSecret"');
    expect(configError(() => loadConfig(remote({ type: 'oauth', grant: 'implicit' }))).path).toBe(
      'mcpServers.api.auth.grant',
    );
  });

  it('rejects OAuth on a stdio server', () => {
    const error = configError(() =>
      loadConfig({ mcpServers: { local: { command: 'x', auth: { type: 'oauth' } } } }),
    );
    expect(error.path).toBe('mcpServers.local.auth');
    expect(error.problem).toContain('remote servers');
  });
});
