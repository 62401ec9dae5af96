/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON-RPC answers */
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacySession, modernCall, startGateway, type TestGateway } from './helpers.js';

const ADMIN = 'admin-token-0123456789';
const READER = 'reader-token-0123456789';

describe('startServer with auth', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGateway({
      mcpServers: { fx: fixtureStdioConfig({ tools: ['echo', 'add'] }) },
      auth: {
        tokens: [
          { token: ADMIN, client: 'admin', allow: ['*'] },
          { token: READER, client: 'reader', allow: ['fx__echo', 'calculate'] },
        ],
      },
      policy: { rateLimit: { perMinute: 1000, perTool: { fx__add: 2 } } },
    });
  });
  afterAll(async () => {
    await gw?.close();
  });

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it('answers nothing but /healthz, /readyz and the page shell without a valid token', async () => {
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    const shell = await fetch(`${gw.url}/`);
    expect(shell.status).toBe(200);
    expect(await shell.text()).not.toMatch(/fx__echo/);
    const guarded: Array<[string, RequestInit]> = [
      ['/metrics', {}],
      ['/api/overview', {}],
      ['/api/calls', {}],
      [
        '/api/call',
        { method: 'POST', body: '{"name":"calculate","arguments":{"expression":"1"}}' },
      ],
      ['/api/code', { method: 'POST', body: '{"code":"return 1"}' }],
      ['/v1/chat/completions', { method: 'POST', body: '{"messages":[]}' }],
      ['/v1/models', {}],
      ['/mcp', { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' }],
      [
        '/servers/fx/mcp',
        { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' },
      ],
    ];
    // A wrong token is refused on the probes too (a health check sends none).
    expect((await fetch(`${gw.url}/readyz`, { headers: bearer('wrong-token') })).status).toBe(401);
    for (const [path, init] of guarded) {
      for (const headers of [{}, bearer('wrong-token')]) {
        const res = await fetch(`${gw.url}${path}`, {
          ...init,
          headers: { 'content-type': 'application/json', ...headers },
        });
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
      }
    }
    const modern = await modernCall(`${gw.url}/mcp`, 'tools/list');
    expect(modern.status).toBe(401);
  });

  it("answers a load balancer's token-less /readyz and /healthz with the status word alone, whatever its Host", async () => {
    const { request } = await import('node:http');
    // A health check names the instance's own address, not one of --allowed-hosts.
    const probe = (path: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; body: unknown }>((resolve, reject) => {
        const url = new URL(`${gw.url}${path}`);
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path,
            headers: { host: '10.1.2.3:8787', ...headers },
          },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    expect(await probe('/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
    expect(await probe('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    // With a token the details stay behind the Host check and the token's scope.
    expect((await probe('/readyz', bearer(ADMIN))).status).toBe(403);
    const full = (await (
      await fetch(`${gw.url}/readyz`, { headers: bearer(ADMIN) })
    ).json()) as any;
    expect(full).toMatchObject({ status: 'ready', tools: expect.any(Number) });
    expect(full.servers.map((s: any) => s.name)).toEqual(['fx']);
  });

  it('lists and calls only what the token allows, on every route', async () => {
    const list = await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(READER));
    expect(list.body.result.tools.map((t: any) => t.name).sort()).toEqual([
      'calculate',
      'fx__echo',
    ]);
    const refused = await modernCall(
      `${gw.url}/mcp`,
      'tools/call',
      { name: 'fx__add', arguments: { a: 1, b: 2 } },
      bearer(READER),
    );
    // Answered as a tool that does not exist: the rule is for the audit log, not the client.
    expect(refused.body.error).toEqual({
      code: -32602,
      message: 'Unknown tool: fx__add',
      data: { tool: 'fx__add' },
    });
    const passthrough = await modernCall(
      `${gw.url}/servers/fx/mcp`,
      'tools/list',
      {},
      bearer(READER),
    );
    expect(passthrough.body.result.tools.map((t: any) => t.name)).toEqual(['echo']);
    const session = await legacySession(`${gw.url}/mcp`, bearer(READER));
    const legacyList = await session.request('tools/list');
    expect(legacyList.body.result.tools).toHaveLength(2);
    const overview = (await (
      await fetch(`${gw.url}/api/overview`, { headers: bearer(READER) })
    ).json()) as any;
    expect(overview.tools.map((t: any) => t.name).sort()).toEqual(['calculate', 'fx__echo']);
    const viaApi = (await (
      await fetch(`${gw.url}/api/call`, {
        method: 'POST',
        headers: { ...bearer(READER), 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'fx__add', arguments: { a: 1, b: 1 } }),
      })
    ).json()) as any;
    expect(viaApi).toMatchObject({
      ok: false,
      error: { code: -32602, message: 'Unknown tool: fx__add' },
    });
    const admin = await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(ADMIN));
    expect(admin.body.result.tools.length).toBeGreaterThan(2);
  });

  it('binds a legacy session to the token that opened it', async () => {
    const session = await legacySession(`${gw.url}/mcp`, bearer(ADMIN));
    const stolen = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        ...bearer(READER),
        'content-type': 'application/json',
        'mcp-session-id': session.sessionId!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(stolen.status).toBe(403);
  });

  it('refuses over the rate limit with retryAfterMs', async () => {
    const call = () =>
      modernCall(
        `${gw.url}/mcp`,
        'tools/call',
        { name: 'fx__add', arguments: { a: 1, b: 2 } },
        bearer(ADMIN),
      );
    expect((await call()).body.result).toBeDefined();
    expect((await call()).body.result).toBeDefined();
    const third = await call();
    expect(third.body.error.message).toMatch(/rate limit/i);
    expect(third.body.error.data.retryAfterMs).toBeGreaterThan(0);
  });

  it('rejects foreign Host and Origin headers (DNS rebinding) and oversized bodies', async () => {
    const { request } = await import('node:http');
    const raw = (headers: Record<string, string>, body = '{}') =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(`${gw.url}/readyz`);
        const req = request(
          { host: url.hostname, port: url.port, path: '/readyz', method: 'GET', headers },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(body === '{}' ? undefined : body);
      });
    expect(await raw({ host: 'evil.example:80', ...bearer(ADMIN) })).toBe(403);
    expect(await raw({ origin: 'http://evil.example', ...bearer(ADMIN) })).toBe(403);
    expect(await raw({ origin: `${gw.url}`, ...bearer(ADMIN) })).toBe(200);
    const big = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { ...bearer(ADMIN), 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { pad: 'x'.repeat(5 * 1024 * 1024) },
      }),
    });
    expect(big.status).toBe(413);
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
  });
});
