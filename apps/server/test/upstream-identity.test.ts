import { startFixtureHttpServer, type FixtureHttpServer } from '@toolwire/testing/mcp';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthorizationServer, type AuthorizationServer } from './authorization-server.js';
import { freePort, modernCall, startGateway, type TestGateway } from './helpers.js';

// The caller's identity towards upstreams (mcpServers.<name>.auth): the gateway's own credentials,
// the caller's token passed through (only when its audience names the upstream), and an RFC 8693
// token exchange at oidc-provider (a grant type registered on its token endpoint) for a token
// whose audience is the upstream. Each upstream records the Authorization header it receives.

/** The Authorization header of each tools/call the upstream received. */
function callAuthorizations(upstream: FixtureHttpServer): string[] {
  return upstream.requests
    .filter((request) => request.headers['mcp-method'] === 'tools/call')
    .map((request) => String(request.headers.authorization ?? ''));
}

describe('mcpServers.<name>.auth: who the upstream sees', () => {
  let as: AuthorizationServer;
  let gw: TestGateway;
  let audience: string;
  let crm: FixtureHttpServer;
  let erp: FixtureHttpServer;
  let plain: FixtureHttpServer;

  beforeAll(async () => {
    as = await startAuthorizationServer();
    crm = await startFixtureHttpServer({ name: 'crm', tools: ['echo'] });
    erp = await startFixtureHttpServer({ name: 'erp', tools: ['echo'] });
    plain = await startFixtureHttpServer({ name: 'plain', tools: ['echo'] });
    const port = await freePort();
    audience = `http://127.0.0.1:${port}/mcp`;
    gw = await startGateway(
      {
        mcpServers: {
          crm: { url: crm.url, auth: { type: 'passthrough' } },
          erp: {
            url: erp.url,
            auth: {
              type: 'token-exchange',
              clientId: as.machine.clientId,
              clientSecret: as.machine.clientSecret,
            },
          },
          plain: { url: plain.url, headers: { Authorization: 'Bearer the-gateway-own-key' } },
        },
        auth: {
          tokens: [{ token: 'static-ops-0123456789', client: 'ops' }],
          jwt: { issuer: as.issuer, audience, scopes: { 'tools:all': ['*'] } },
        },
      },
      { port },
    );
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([crm, erp, plain].map((upstream) => upstream?.close()));
    await as?.close();
  });

  const call = (name: string, token: string, url = `${gw.url}/mcp`) =>
    modernCall(
      url,
      'tools/call',
      { name, arguments: { text: 'hi' } },
      { authorization: `Bearer ${token}` },
    );

  it("passes the caller's token on only when its audience names the upstream", async () => {
    const gatewayOnly = await as.token({ resource: audience, scope: 'tools:all' });
    const refused = await call('crm__echo', gatewayOnly);
    expect(refused.body.error.message).toContain('is not for upstream "crm"');
    expect(refused.body.error.message).toContain('not passed on');
    expect(callAuthorizations(crm)).toEqual([]);

    // oidc-provider puts one audience in a token; issuers that put several (Keycloak, Entra ID)
    // are stood in for by a token signed with the issuer's own key.
    const now = Math.floor(Date.now() / 1000);
    const both = await as.sign({
      iss: as.issuer,
      aud: [audience, crm.url],
      sub: 'erin',
      scope: 'tools:all',
      iat: now,
      exp: now + 300,
    });
    const answered = await call('crm__echo', both);
    expect(answered.body.result.content[0].text).toBe('echo: hi');
    expect(callAuthorizations(crm)).toEqual([`Bearer ${both}`]);
    // The upstream's own route relays it the same way.
    const relayed = await call('echo', both, `${gw.url}/servers/crm/mcp`);
    expect(relayed.body.result.content[0].text).toBe('echo: hi');
    expect(callAuthorizations(crm)).toEqual([`Bearer ${both}`, `Bearer ${both}`]);
  });

  it("exchanges the caller's token for one whose audience is the upstream, once per token", async () => {
    const token = await as.token({ resource: audience, scope: 'tools:all' });
    const before = as.exchanges.length;
    for (let i = 0; i < 3; i++) {
      const answered = await call('erp__echo', token);
      expect(answered.body.result.content[0].text).toBe('echo: hi');
    }
    expect(as.exchanges.length - before).toBe(1);
    expect(as.exchanges.at(-1)).toEqual({
      subject: as.machine.clientId,
      audience: erp.url,
      clientId: as.machine.clientId,
    });
    const received = callAuthorizations(erp);
    expect(new Set(received).size).toBe(1);
    const exchanged = received[0]!.replace(/^Bearer /, '');
    expect(exchanged).not.toBe(token);
    // Signed by the issuer, for the upstream, on behalf of the same subject.
    const { payload } = await jwtVerify(
      exchanged,
      createLocalJWKSet({ keys: [as.key.publicJwk] }),
      {
        issuer: as.issuer,
        audience: erp.url,
      },
    );
    expect(payload.sub).toBe(decodeJwt(token).sub);
    expect(payload.act).toEqual({ sub: as.machine.clientId });
  });

  it("keeps the gateway's own credentials for other upstreams, whoever calls", async () => {
    const token = await as.token({ resource: audience, scope: 'tools:all' });
    await call('plain__echo', token);
    await call('plain__echo', 'static-ops-0123456789');
    expect(callAuthorizations(plain)).toEqual([
      'Bearer the-gateway-own-key',
      'Bearer the-gateway-own-key',
    ]);
  });

  it('refuses a static token where the upstream acts as the caller', async () => {
    for (const name of ['crm__echo', 'erp__echo']) {
      const refused = await call(name, 'static-ops-0123456789');
      expect(refused.body.error.message).toContain(
        'only a caller with an access token of auth.jwt',
      );
    }
  });

  it('refuses the call when the authorization server refuses the exchange', async () => {
    // A token the gateway accepts but the issuer does not (signed by the issuer's key before a
    // rotation): the exchange fails and the call says so; the upstream sees nothing.
    const token = await as.token({ resource: audience, scope: 'tools:all' });
    const seen = callAuthorizations(erp).length;
    await as.rotate();
    try {
      const refused = await call('erp__echo', token);
      expect(refused.body.error.message).toMatch(
        /Token exchange for upstream "erp" failed: invalid_grant/,
      );
      expect(callAuthorizations(erp).length).toBe(seen);
    } finally {
      // Later tests in this file get tokens signed with the new key, which the gateway fetches.
    }
  });
});
