import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHeadlessAuthorizationHandler, type AuthorizationHandler } from './oauth-handlers.js';
import { createLoopbackAuthorizationHandler } from './oauth-loopback-handler.js';
import { MemoryOAuthTokenStore } from './oauth-token-store.js';
import { ServerUnavailableError } from './errors.js';
import { createRegistry } from './node-registry.js';
import type { Registry } from './registry-types.js';
import { startOAuthFixture, type OAuthFixture } from './testing/oauth-fixture.js';

const quiet = { warn: () => {}, info: () => {}, debug: () => {} };
let fixture: OAuthFixture | undefined;
const registries: Registry[] = [];

afterEach(async () => {
  await Promise.all(registries.splice(0).map((registry) => registry.close()));
  await fixture?.close();
  fixture = undefined;
});

/** The headless handler, counting how often the user step ran. */
function countingHandler(): AuthorizationHandler & { runs: number } {
  const headless = createHeadlessAuthorizationHandler();
  const handler = Object.assign(
    async (request: Parameters<AuthorizationHandler>[0]) => {
      handler.runs++;
      return headless(request);
    },
    { runs: 0 },
  );
  return handler;
}

function registryFor(
  url: string,
  options: { store: string; authorize: AuthorizationHandler; scopes?: string[] },
): Registry {
  const registry = createRegistry({
    config: {
      mcpServers: {
        secure: {
          url,
          protocol: 'legacy',
          auth: { type: 'oauth', ...(options.scopes ? { scopes: options.scopes } : {}) },
        },
      },
    },
    nativeTools: [],
    refreshIntervalMs: 0,
    connectTimeoutMs: 10_000,
    backoff: { initialMs: 60_000, maxMs: 60_000 },
    logger: quiet,
    oauth: {
      store: options.store,
      authorize: options.authorize,
      redirectUrl: 'http://127.0.0.1:1/callback',
    },
  });
  registries.push(registry);
  return registry;
}

describe('createRegistry (OAuth-protected remote server)', () => {
  it('discovers, registers, authorizes with PKCE, refreshes, re-authorizes after a 401 and reuses stored tokens', async () => {
    fixture = await startOAuthFixture();
    const store = join(mkdtempSync(join(tmpdir(), 'toolwire-oauth-e2e-')), 'oauth-tokens.json');
    const authorize = countingHandler();
    const registry = registryFor(fixture.mcpUrl, { store, authorize, scopes: ['tools'] });
    await registry.start();

    expect(registry.servers()[0]).toMatchObject({ name: 'secure', status: 'ok', tools: 1 });
    // Discovery: the 401 pointed at the protected-resource metadata, which named the issuer.
    expect(fixture.requests).toEqual(
      expect.arrayContaining([
        'GET /.well-known/oauth-protected-resource/mcp',
        'GET /.well-known/oauth-authorization-server',
        'POST /register',
        'GET /authorize',
        'POST /token',
      ]),
    );
    expect(fixture.registrations).toHaveLength(1);
    expect(fixture.registrations[0]!.redirect_uris).toEqual(['http://127.0.0.1:1/callback']);
    const authorization = fixture.authorizations[0]!;
    expect(authorization.get('code_challenge_method')).toBe('S256');
    expect(authorization.get('resource')).toBe(fixture.mcpUrl);
    expect(authorization.get('scope')).toBe('tools');
    expect(authorization.get('state')).toMatch(/^\S{8,}$/);
    // The fixture's token endpoint checked the PKCE verifier against the challenge.
    expect(fixture.grants).toEqual(['authorization_code']);
    expect(authorize.runs).toBe(1);

    const stored = JSON.parse(readFileSync(store, 'utf8')) as {
      servers: Record<string, { tokens?: { refresh_token?: string }; clientInformation?: object }>;
    };
    const entry = stored.servers[`secure ${fixture.mcpUrl}`];
    expect(entry?.tokens?.refresh_token).toMatch(/^\S+$/);
    expect(entry?.clientInformation).toMatchObject({ client_id: 'client-1' });
    expect(statSync(store).mode & 0o777).toBe(0o600);

    const name = registry.listTools()[0]!.name;
    expect((await registry.callTool(name, {})).content).toEqual([
      { type: 'text', text: 'hello, authorized caller' },
    ]);

    // The access token expires: the 401 is answered with a refresh, the call goes through.
    fixture.expireAccessTokens();
    expect((await registry.callTool(name, {})).isError).toBeFalsy();
    expect(fixture.grants).toEqual(['authorization_code', 'refresh_token']);
    expect(authorize.runs).toBe(1);

    // Everything is revoked: the refresh fails, the user step runs again, the call is resent.
    fixture.revokeAll();
    expect((await registry.callTool(name, {})).isError).toBeFalsy();
    expect(authorize.runs).toBe(2);
    expect(fixture.grants).toEqual(['authorization_code', 'refresh_token', 'authorization_code']);
    expect(fixture.registrations).toHaveLength(1); // the registered client is reused
    expect(fixture.calls).toEqual(['whoami', 'whoami', 'whoami']);
    await registry.close();

    // The next run reads the token file: no registration, no user step.
    const again = countingHandler();
    const next = registryFor(fixture.mcpUrl, { store, authorize: again });
    await next.start();
    expect(next.servers()[0]!.status).toBe('ok');
    expect(again.runs).toBe(0);
    expect(fixture.registrations).toHaveLength(1);
  });

  it('reports a server whose authorization is refused as down, with what to do, without failing start()', async () => {
    fixture = await startOAuthFixture({ refuse: true });
    const store = join(mkdtempSync(join(tmpdir(), 'toolwire-oauth-e2e-')), 'oauth-tokens.json');
    const registry = registryFor(fixture.mcpUrl, {
      store,
      authorize: createHeadlessAuthorizationHandler(),
    });
    await registry.start();
    const server = registry.servers()[0]!;
    expect(server.status).toBe('down');
    expect(server.reason).toContain('OAuth authorization failed');
    expect(server.reason).toContain('access_denied');
    expect(server.reason).toContain('mcpServers.secure.auth');
    expect(server.reason).toContain(store);
    expect(registry.listTools()).toEqual([]);
  });

  it('marks the server down with the OAuth reason when a call needs a new authorization that fails', async () => {
    fixture = await startOAuthFixture();
    const store = join(mkdtempSync(join(tmpdir(), 'toolwire-oauth-e2e-')), 'oauth-tokens.json');
    const registry = registryFor(fixture.mcpUrl, {
      store,
      authorize: createHeadlessAuthorizationHandler(),
    });
    await registry.start();
    expect(registry.servers()[0]!.status).toBe('ok');
    fixture.revokeAll();
    fixture.refuseAuthorization();
    const error = await registry.callTool('secure__whoami', {}).catch((e: unknown) => e);
    expect(ServerUnavailableError.isInstance(error)).toBe(true);
    expect((error as ServerUnavailableError).reason).toContain('access_denied');
    expect(registry.servers()[0]).toMatchObject({
      status: 'down',
      reason: expect.stringContaining('OAuth authorization failed'),
    });
    expect(fixture.calls).toEqual([]);
  });
});

describe('createRegistry (OAuth client_credentials)', () => {
  it('gets a token with the client credentials, without a user step, and again after a 401', async () => {
    fixture = await startOAuthFixture({
      machineClient: { clientId: 'robot', clientSecret: 's3cret' },
    });
    const authorize = countingHandler();
    const registry = createRegistry({
      config: {
        mcpServers: {
          secure: {
            url: fixture.mcpUrl,
            protocol: 'legacy',
            auth: {
              type: 'oauth',
              grant: 'client_credentials',
              clientId: 'robot',
              clientSecret: 's3cret',
            },
          },
        },
      },
      nativeTools: [],
      refreshIntervalMs: 0,
      logger: quiet,
      oauth: { store: new MemoryOAuthTokenStore(), authorize },
    });
    registries.push(registry);
    await registry.start();
    expect(registry.servers()[0]!.status).toBe('ok');
    expect(fixture.grants).toEqual(['client_credentials']);
    expect(fixture.registrations).toHaveLength(0);
    fixture.revokeAll();
    expect((await registry.callTool('secure__whoami', {})).isError).toBeFalsy();
    expect(fixture.grants).toEqual(['client_credentials', 'client_credentials']);
    expect(authorize.runs).toBe(0);
  });

  it('reports wrong client credentials as down with the OAuth reason', async () => {
    fixture = await startOAuthFixture({
      machineClient: { clientId: 'robot', clientSecret: 's3cret' },
    });
    const registry = createRegistry({
      config: {
        mcpServers: {
          secure: {
            url: fixture.mcpUrl,
            protocol: 'legacy',
            auth: {
              type: 'oauth',
              grant: 'client_credentials',
              clientId: 'robot',
              clientSecret: 'x',
            },
          },
        },
      },
      nativeTools: [],
      refreshIntervalMs: 0,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
      logger: quiet,
      oauth: { store: new MemoryOAuthTokenStore(), authorize: countingHandler() },
    });
    registries.push(registry);
    await registry.start();
    expect(registry.servers()[0]).toMatchObject({
      status: 'down',
      reason: expect.stringContaining('OAuth authorization failed'),
    });
  });
});

describe('createLoopbackAuthorizationHandler', () => {
  it('serves the redirect URL on 127.0.0.1 and resolves with the callback of the matching state', async () => {
    const port = await freePort();
    const printed: string[] = [];
    const handler = createLoopbackAuthorizationHandler({ print: (line) => printed.push(line) });
    const redirectUrl = `http://127.0.0.1:${port}/callback`;
    const pending = handler({
      server: 'api',
      authorizationUrl: new URL('https://as.example/authorize?state=s1&client_id=c'),
      redirectUrl,
    });
    await waitFor(() => printed.length > 0);
    expect(printed[0]).toContain('https://as.example/authorize?state=s1');
    const wrong = await fetch(`${redirectUrl}?code=x&state=other`);
    expect(wrong.status).toBe(400);
    const browser = await fetch(`${redirectUrl}?code=abc&state=s1`);
    expect(browser.status).toBe(200);
    expect(await browser.text()).toContain('Authorization complete');
    const params = await pending;
    expect(params.get('code')).toBe('abc');
    // The listener is gone once nothing is pending.
    await expect(fetch(`${redirectUrl}?code=abc&state=s1`)).rejects.toThrow();
  });

  it('rejects a redirect URL that is not loopback http with a port, naming the config key', async () => {
    const handler = createLoopbackAuthorizationHandler({ print: () => {} });
    await expect(
      handler({
        server: 'api',
        authorizationUrl: new URL('https://as.example/authorize?state=s'),
        redirectUrl: 'https://app.example/callback',
      }),
    ).rejects.toThrow('mcpServers.api.auth.redirectUrl');
  });

  it('gives up when the connect attempt is abandoned', async () => {
    const port = await freePort();
    const controller = new AbortController();
    const pending = createLoopbackAuthorizationHandler({ print: () => {} })({
      server: 'api',
      authorizationUrl: new URL('https://as.example/authorize?state=s2'),
      redirectUrl: `http://127.0.0.1:${port}/callback`,
      signal: controller.signal,
    });
    controller.abort(new Error('connect timed out'));
    await expect(pending).rejects.toThrow('connect timed out');
  });
});

describe('createHeadlessAuthorizationHandler', () => {
  it('says the server needs a user when the authorization endpoint does not redirect', async () => {
    const handler = createHeadlessAuthorizationHandler({
      fetch: async () => new Response('<form>log in</form>', { status: 200 }),
    });
    await expect(
      handler({
        server: 'api',
        authorizationUrl: new URL('https://as.example/authorize'),
        redirectUrl: 'http://127.0.0.1:1/cb',
      }),
    ).rejects.toThrow('needs a user to authorize');
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(condition: () => boolean): Promise<void> {
  await vi
    .waitFor(() => expect(condition()).toBe(true), { timeout: 2_000, interval: 5 })
    .catch(() => undefined);
}
