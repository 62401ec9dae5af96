/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON answers */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolwireConfig } from '@toolwire/mcp';
import {
  newSigningKey,
  startAuthorizationServer,
  type AuthorizationServer,
} from './authorization-server.js';
import {
  freePort,
  legacySession,
  modernCall,
  startGateway,
  waitFor,
  type TestGateway,
} from './helpers.js';

// The gateway as an OAuth 2.1 resource server (SPEC.md, auth.jwt) in front of a real authorization
// server (oidc-provider): RFC 9728 metadata, the 401 challenge, and every way an access token can
// be wrong.

/** A gateway whose auth.jwt audience is its own /mcp URL (the port is chosen first). */
async function gatewayFor(
  as: AuthorizationServer,
  extra: Partial<ToolwireConfig> = {},
): Promise<{ gw: TestGateway; audience: string }> {
  const port = await freePort();
  const audience = `http://127.0.0.1:${port}/mcp`;
  const gw = await startGateway(
    {
      mcpServers: {},
      auth: {
        tokens: [{ token: 'static-admin-0123456789', client: 'ops', allow: ['*'] }],
        jwt: {
          issuer: as.issuer,
          audience,
          scopes: { 'tools:all': ['*'], math: ['calculate'] },
        },
      },
      ...extra,
    },
    { port },
  );
  return { gw, audience };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('auth.jwt: the gateway as a resource server', () => {
  let as: AuthorizationServer;
  let gw: TestGateway;
  let audience: string;

  beforeAll(async () => {
    as = await startAuthorizationServer();
    ({ gw, audience } = await gatewayFor(as));
  });
  afterAll(async () => {
    await gw?.close();
    await as?.close();
  });

  it('serves RFC 9728 metadata at the bare and the /mcp-suffixed well-known path', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const response = await fetch(`${gw.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toEqual({
        resource: audience,
        authorization_servers: [as.issuer],
        scopes_supported: ['tools:all', 'math'],
        bearer_methods_supported: ['header'],
        resource_name: 'Toolwire gateway',
      });
    }
  });

  it('answers every 401 with WWW-Authenticate naming the metadata', async () => {
    const expected = `resource_metadata="${new URL(audience).origin}/.well-known/oauth-protected-resource/mcp"`;
    const answers = [
      await modernCall(`${gw.url}/mcp`, 'tools/list'),
      await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer('not-a-token')),
      await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer('a.b.c')),
    ];
    for (const path of ['/api/overview', '/metrics', '/v1/models', '/readyz', '/nowhere']) {
      const response = await fetch(`${gw.url}${path}`, { headers: bearer('wrong') });
      answers.push({
        status: response.status,
        headers: response.headers,
        body: await response.text(),
      });
    }
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toContain(`Bearer ${expected}`);
    }
    // A token that was presented and refused says why (RFC 6750).
    expect(answers[2]!.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('accepts a token from the issuer for this audience: the subject is the client', async () => {
    const token = await as.token({ resource: audience, scope: 'tools:all' });
    const list = await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(token));
    expect(list.status).toBe(200);
    expect(list.body.result.tools.map((t: any) => t.name).sort()).toEqual([
      'calculate',
      'hash',
      'time',
    ]);
    const call = await modernCall(
      `${gw.url}/mcp`,
      'tools/call',
      { name: 'calculate', arguments: { expression: '6*7' } },
      bearer(token),
    );
    expect(call.body.result.structuredContent.result).toBe(42);
    // The audit line, the dashboard's call log and the metrics name the subject.
    const audit = await waitFor(
      () => gw.logs.find((line) => line.event === 'tool_call' && line.outcome === 'ok'),
      'the audit line',
    );
    expect(audit.client).toBe(as.machine.clientId);
    const calls: any = await (
      await fetch(`${gw.url}/api/calls`, { headers: bearer(token) })
    ).json();
    expect(calls.calls.map((c: any) => c.client)).toContain(as.machine.clientId);
    const metrics = await (await fetch(`${gw.url}/metrics`, { headers: bearer(token) })).text();
    expect(metrics).toContain(`client="${as.machine.clientId}"`);
    // Static tokens keep working beside access tokens.
    const stat = await modernCall(
      `${gw.url}/mcp`,
      'tools/list',
      {},
      bearer('static-admin-0123456789'),
    );
    expect(stat.body.result.tools).toHaveLength(3);
  });

  it("grants a token its scopes' patterns, the same on every route", async () => {
    const token = await as.token({ resource: audience, scope: 'math' });
    const list = await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(token));
    expect(list.body.result.tools.map((t: any) => t.name)).toEqual(['calculate']);
    const refused = await modernCall(
      `${gw.url}/mcp`,
      'tools/call',
      { name: 'hash', arguments: { data: 'x' } },
      bearer(token),
    );
    // Refused as a tool that does not exist (the rule goes to the audit line, not to the caller).
    const missing = await modernCall(
      `${gw.url}/mcp`,
      'tools/call',
      { name: 'no_such_tool', arguments: { data: 'x' } },
      bearer(token),
    );
    expect(refused.body.error.code).toBe(missing.body.error.code);
    expect(refused.body.error.message).toBe('Unknown tool: hash');
    expect(JSON.stringify(refused.body)).not.toMatch(/auth\.jwt|scope/);
    const api: any = await (
      await fetch(`${gw.url}/api/overview`, { headers: bearer(token) })
    ).json();
    expect(api.tools.map((t: any) => t.name)).toEqual(['calculate']);
    expect(api.gateway.client).toBe(as.machine.clientId);
    // A scope the config does not map grants nothing.
    const other = await as.token({ resource: audience, scope: 'web' });
    const none = await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(other));
    expect(none.body.result.tools).toEqual([]);
  });

  it("keeps a 2025-era session across the subject's refreshed token, not for another subject", async () => {
    const first = await as.token({ resource: audience, scope: 'tools:all' });
    const session = await legacySession(`${gw.url}/mcp`, bearer(first));
    expect(session.sessionId).toBeTypeOf('string');
    const refreshed = await as.token({ resource: audience, scope: 'tools:all' });
    expect(refreshed).not.toBe(first);
    const post = (token: string) =>
      fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': session.sessionId!,
          'mcp-protocol-version': '2025-11-25',
          ...bearer(token),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
    expect((await post(refreshed)).status).toBe(200);
    const someoneElse = await as.sign({
      iss: as.issuer,
      aud: audience,
      sub: 'mallory',
      scope: 'tools:all',
      iat: now(),
      exp: now() + 60,
    });
    expect((await post(someoneElse)).status).toBe(403);
  });

  const now = () => Math.floor(Date.now() / 1000);
  const claims = (overrides: Record<string, unknown> = {}) => ({
    iss: as.issuer,
    aud: audience,
    sub: 'mallory',
    scope: 'tools:all',
    iat: now(),
    exp: now() + 300,
    ...overrides,
  });

  /** The refusal of `token`: status, challenge and message. */
  async function refusal(token: string) {
    const answer = await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(token));
    expect(answer.status, JSON.stringify(answer.body)).toBe(401);
    expect(answer.headers.get('www-authenticate')).toContain('error="invalid_token"');
    return String(answer.body.error.message);
  }

  it('refuses an expired token, past the clock skew', async () => {
    expect(await refusal(await as.sign(claims({ iat: now() - 600, exp: now() - 60 })))).toMatch(
      /expired/,
    );
    // Within the skew (30 s) it still passes.
    const late = await as.sign(claims({ iat: now() - 600, exp: now() - 5 }));
    expect((await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(late))).status).toBe(200);
  });

  it('refuses a token that is not valid yet', async () => {
    expect(await refusal(await as.sign(claims({ nbf: now() + 120 })))).toMatch(/not valid yet/);
  });

  it('refuses a token for another audience, from the real issuer', async () => {
    const token = await as.token({ resource: 'https://elsewhere.example/mcp', scope: 'tools:all' });
    expect(await refusal(token)).toMatch(/not for this gateway/);
  });

  it('refuses a token naming another issuer, even signed with the right key', async () => {
    expect(await refusal(await as.sign(claims({ iss: 'https://evil.example' })))).toMatch(
      /another issuer/,
    );
  });

  it('refuses a token without an expiry', async () => {
    expect(await refusal(await as.sign(claims({ exp: undefined })))).toMatch(/"exp"/);
  });

  it('refuses a token signed by a key the issuer does not have', async () => {
    const stranger = await newSigningKey();
    expect(await refusal(await as.sign(claims(), { key: stranger }))).toMatch(
      /not among the issuer's keys/,
    );
  });

  it('refuses alg "none"', async () => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const token = `${encode({ alg: 'none', typ: 'at+jwt' })}.${encode(claims())}.`;
    expect(await refusal(token)).toMatch(/algorithm not accepted|malformed/);
  });

  it("refuses HS256 signed with the issuer's public key as the secret", async () => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const header = encode({ alg: 'HS256', typ: 'at+jwt', kid: as.key.kid });
    const body = encode(claims());
    // Every spelling of the public key an implementation might use as the HMAC secret.
    const secrets = [
      JSON.stringify(as.key.publicJwk),
      Buffer.from(as.key.publicJwk.n!, 'base64url'),
      as.key.publicJwk.n!,
    ];
    for (const secret of secrets) {
      const signature = createHmac('sha256', secret)
        .update(`${header}.${body}`)
        .digest('base64url');
      expect(await refusal(`${header}.${body}.${signature}`)).toMatch(/algorithm not accepted/);
    }
  });

  it('refuses a tampered token', async () => {
    const token = await as.token({ resource: audience, scope: 'math' });
    const [header, , signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify(claims({ scope: 'tools:all' }))).toString(
      'base64url',
    );
    expect(await refusal(`${header}.${forged}.${signature}`)).toMatch(/signature is invalid/);
  });
});

describe('auth.jwt: signing keys', () => {
  let as: AuthorizationServer;
  afterAll(async () => {
    await as?.close();
  });

  it('follows a key rotation at the issuer without a restart, fetching keys only when needed', async () => {
    as = await startAuthorizationServer();
    const { gw, audience } = await gatewayFor(as);
    try {
      const first = await as.token({ resource: audience, scope: 'tools:all' });
      for (let i = 0; i < 5; i++) {
        const answer = await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(first));
        expect(answer.status).toBe(200);
      }
      // Keys are fetched once, not per request.
      expect(as.jwksFetches).toBe(1);
      await as.rotate();
      const second = await as.token({ resource: audience, scope: 'tools:all' });
      const answer = await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(second));
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(as.jwksFetches).toBe(2);
      expect(
        gw.logs.filter((line) => line.msg === "fetched the issuer's signing keys"),
      ).toHaveLength(2);
    } finally {
      await gw.close();
    }
  });

  it('fetches the keys at most once per cool-down however many unknown kids arrive', async () => {
    as = await startAuthorizationServer();
    const { gw, audience } = await gatewayFor(as);
    try {
      const valid = await as.token({ resource: audience, scope: 'tools:all' });
      expect((await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(valid))).status).toBe(200);
      const fetchesBefore = as.jwksFetches;
      const now = Math.floor(Date.now() / 1000);
      const attempts = await Promise.all(
        Array.from({ length: 40 }, async () => {
          const stranger = await newSigningKey();
          const token = await as.sign(
            { iss: as.issuer, aud: audience, sub: 'x', exp: now + 60 },
            { key: stranger },
          );
          return modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(token));
        }),
      );
      for (const answer of attempts) expect(answer.status).toBe(401);
      expect(as.jwksFetches - fetchesBefore).toBeLessThanOrEqual(1);
      // The known key keeps working throughout.
      expect((await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(valid))).status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it("answers 503, not 401, while the issuer's keys cannot be read", async () => {
    as = await startAuthorizationServer();
    const port = await freePort();
    const audience = `http://127.0.0.1:${port}/mcp`;
    const gw = await startGateway(
      {
        mcpServers: {},
        auth: { jwt: { issuer: as.issuer, jwksUri: 'http://127.0.0.1:1/jwks', audience } },
      },
      { port },
    );
    try {
      const token = await as.token({ resource: audience, scope: 'tools:all' });
      const answer = await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(token));
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('5');
      // The gateway stays up for everyone else.
      expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    } finally {
      await gw.close();
    }
  });
});

describe('auth.jwt.introspection: opaque access tokens (RFC 7662)', () => {
  let as: AuthorizationServer;
  let gw: TestGateway;
  let audience: string;

  beforeAll(async () => {
    const port = await freePort();
    audience = `http://127.0.0.1:${port}/mcp`;
    as = await startAuthorizationServer({ opaque: [audience] });
    gw = await startGateway(
      {
        mcpServers: {},
        auth: {
          jwt: {
            issuer: as.issuer,
            audience,
            scopes: { 'tools:all': ['*'], math: ['calculate'] },
            introspection: {
              clientId: as.machine.clientId,
              clientSecret: as.machine.clientSecret,
            },
          },
        },
      },
      { port },
    );
  });
  afterAll(async () => {
    await gw?.close();
    await as?.close();
  });

  it('accepts an active opaque token for this audience with its scopes, and refuses others', async () => {
    const token = await as.token({ resource: audience, scope: 'math' });
    expect(token.split('.')).toHaveLength(1);
    const list = await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(token));
    expect(list.body.result.tools.map((t: any) => t.name)).toEqual(['calculate']);
    const audit = await modernCall(
      `${gw.url}/mcp`,
      'tools/call',
      { name: 'calculate', arguments: { expression: '1+2' } },
      bearer(token),
    );
    expect(audit.body.result.structuredContent.result).toBe(3);
    const unknown = await modernCall(
      `${gw.url}/mcp`,
      'tools/list',
      {},
      bearer('opaque-but-unknown'),
    );
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.message).toContain('not active');
    const elsewhere = await as.token({ resource: 'https://elsewhere.example/mcp', scope: 'math' });
    const refused = await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(elsewhere));
    expect(refused.status).toBe(401);
  });
});
