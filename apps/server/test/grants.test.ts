/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON-RPC answers */
// Many tenants on one gateway, tried as an attacker holding a limited token would: what it may run
// (grants), what it can learn of what it may not reach (nothing: every hidden tool, upstream and
// gateway tool is answered byte for byte as one that does not exist), and which upstreams it can
// start (only those it is granted something of).
import {
  fixtureStdioConfig,
  startFixtureHttpServer,
  type FixtureHttpServer,
} from '@toolwire/testing/mcp';
import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  legacySession,
  modernCall,
  startGateway,
  type RpcAnswer,
  type TestGateway,
} from './helpers.js';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** An answer as status and body, its request id dropped and `name` written `<name>`. */
function shape(answer: { status: number; body: unknown }, name: string): string {
  const body =
    typeof answer.body === 'object' && answer.body !== null
      ? { ...(answer.body as Record<string, unknown>), id: '<id>' }
      : answer.body;
  return `${answer.status} ${JSON.stringify(body).replaceAll(name, '<name>')}`;
}

describe('grants: what a token may run', () => {
  let fake: FakeProvider;
  let gw: TestGateway;

  beforeAll(async () => {
    fake = await startFakeProvider({ provider: 'openai' });
    gw = await startGateway({
      nativeTools: ['calculate'],
      mcpServers: {},
      codeMode: { enabled: true },
      chat: { provider: 'openai', baseUrl: `${fake.url}/v1`, apiKey: 'operator-key', model: 'm' },
      auth: {
        tokens: [
          { token: 'grants-none-0123456789', client: 'none', allow: [] },
          { token: 'grants-chat-0123456789', client: 'chatter', allow: ['chat', 'calculate'] },
          { token: 'grants-all-0123456789', client: 'all', allow: ['*'] },
        ],
      },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  const post = (path: string, token: string, body: unknown) =>
    fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify(body),
    });

  it('runs no code for a token granted nothing: /api/code, /api/declarations and /mcp refuse it first', async () => {
    const none = 'grants-none-0123456789';
    // A script that would call a tool and spin for seconds: refused before it is even read.
    const code = await post('/api/code', none, {
      code: 'await tools.calculate({ expression: "1+1" }); for (let i = 0; i < 3e7; i++); return 1;',
      typecheck: 'off',
    });
    expect(code.status).toBe(403);
    expect(((await code.json()) as any).error.message).toMatch(/grant "execute_code"/);
    const declarations = await fetch(`${gw.url}/api/declarations`, { headers: bearer(none) });
    expect(declarations.status).toBe(403);
    expect(await declarations.text()).not.toMatch(/calculate/);
    // On /mcp it is neither offered execute_code nor can it call it: as a tool that does not exist.
    const list = await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(none));
    expect(list.body.result.tools).toEqual([]);
    const hidden = await modernCall(
      `${gw.url}/mcp`,
      'tools/call',
      { name: 'execute_code', arguments: { code: 'return 1' } },
      bearer(none),
    );
    const missing = await modernCall(
      `${gw.url}/mcp`,
      'tools/call',
      { name: 'execute_nothing', arguments: { code: 'return 1' } },
      bearer(none),
    );
    expect(shape(hidden, 'execute_code')).toBe(shape(missing, 'execute_nothing'));
    expect(
      gw.logs.some(
        (l) => l.event === 'tool_call' && l.client === 'none' && l.outcome !== 'refused',
      ),
    ).toBe(false);
    // The same script runs for a token granted "*".
    const ran = await post('/api/code', 'grants-all-0123456789', {
      code: 'return 6 * 7',
      typecheck: 'off',
    });
    expect(((await ran.json()) as any).value).toBe(42);
  });

  it('spends no model call for a token without the grant "chat", on either chat endpoint', async () => {
    const before = fake.requests.length;
    for (const [path, body] of [
      ['/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }] }],
      ['/v1/responses', { input: 'hi' }],
    ] as const) {
      const answer = await post(path, 'grants-none-0123456789', body);
      expect(answer.status, path).toBe(403);
      expect(((await answer.json()) as any).error, path).toMatchObject({
        type: 'permission_error',
        message: expect.stringMatching(/grant "chat"/),
      });
    }
    expect(fake.requests.length).toBe(before);
  });

  it('offers a chatting token without execute_code the tools it may call, not code mode', async () => {
    fake.push({ text: 'hello' }, { text: 'hello' });
    for (const [path, body] of [
      ['/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }] }],
      ['/v1/responses', { input: 'hi' }],
    ] as const) {
      const before = fake.requests.length;
      const answer = await post(path, 'grants-chat-0123456789', body);
      expect(answer.status, path).toBe(200);
      const offered = fake.requests[before]!.body.tools.map((t: any) => t.function?.name ?? t.name);
      expect(offered, path).toEqual(['calculate']);
    }
  });
});

describe('one answer for "not granted" and "does not exist"', () => {
  let web: FixtureHttpServer;
  let gw: TestGateway;
  const LIMITED = 'hidden-limited-0123456789';

  beforeAll(async () => {
    web = await startFixtureHttpServer({ name: 'web', tools: ['echo', 'add'], catalog: true });
    gw = await startGateway({
      nativeTools: ['calculate'],
      mcpServers: {
        fx: fixtureStdioConfig({ name: 'fx', tools: ['echo', 'add'], catalog: true }),
        web: { url: web.url },
        vault: fixtureStdioConfig({ name: 'vault', tools: ['echo', 'add'], catalog: true }),
        // One tool per server (gateway mode), connected on first use: granted to nobody here.
        [`lazyvault${process.pid}`]: {
          ...fixtureStdioConfig({ name: 'lazyvault', tools: ['echo'] }),
          gateway: true,
        },
      },
      auth: {
        tokens: [
          { token: 'hidden-admin-0123456789', client: 'admin', allow: ['*'] },
          { token: LIMITED, client: 'limited', allow: ['fx__echo', 'web__echo'] },
        ],
      },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await web?.close();
  });

  for (const revision of ['legacy', 'modern'] as const) {
    /** One request as the limited token, in this revision (a fresh session for the legacy one). */
    const ask = async (
      path: string,
      method: string,
      params: Record<string, unknown>,
    ): Promise<RpcAnswer> => {
      const url = `${gw.url}${path}`;
      if (revision === 'modern') return modernCall(url, method, params, bearer(LIMITED));
      const session = await legacySession(url, bearer(LIMITED));
      if (!session.sessionId) return session.init;
      return session.request(method, params);
    };

    it(`answers a hidden tool exactly as a missing one, on every route (${revision})`, async () => {
      for (const [path, hidden, missing] of [
        ['/mcp', 'fx__add', 'fx__nope'],
        ['/mcp', 'vault__echo', 'vault__nope'],
        ['/mcp', 'web__add', 'web__nope'],
        ['/servers/fx/mcp', 'add', 'nope'],
        ['/servers/web/mcp', 'add', 'nope'],
      ] as const) {
        const hiddenAnswer = await ask(path, 'tools/call', {
          name: hidden,
          arguments: { a: 1, b: 2 },
        });
        const missingAnswer = await ask(path, 'tools/call', {
          name: missing,
          arguments: { a: 1, b: 2 },
        });
        expect(hiddenAnswer.body.error, `${path} ${hidden}`).toBeDefined();
        expect(shape(hiddenAnswer, hidden), `${path} ${hidden}`).toBe(
          shape(missingAnswer, missing),
        );
      }
      // The audit line keeps what the client is not told.
      expect(
        gw.logs.find(
          (l) => l.event === 'tool_call' && l.client === 'limited' && l.tool === 'fx__add',
        ),
      ).toMatchObject({ outcome: 'refused', error: expect.stringMatching(/auth\.tokens\.allow/) });
    });

    it(`answers an upstream it reaches nothing of exactly as one that does not exist (${revision})`, async () => {
      for (const method of ['tools/list', 'prompts/list', 'tools/call']) {
        const params = method === 'tools/call' ? { name: 'echo', arguments: { text: 'x' } } : {};
        const hidden = await ask('/servers/vault/mcp', method, params);
        const missing = await ask('/servers/nowhere/mcp', method, params);
        expect(hidden.status, method).toBe(404);
        expect(shape(hidden, 'vault'), method).toBe(shape(missing, 'nowhere'));
      }
      for (const method of ['GET', 'DELETE']) {
        const send = (server: string) =>
          fetch(`${gw.url}/servers/${server}/mcp`, {
            method,
            headers: { accept: 'text/event-stream', 'mcp-session-id': 'x', ...bearer(LIMITED) },
          }).then(async (r) => ({ status: r.status, body: (await r.json()) as unknown }));
        expect(shape(await send('vault'), 'vault'), method).toBe(
          shape(await send('nowhere'), 'nowhere'),
        );
      }
    });
  }

  it('answers an upstream name the same before authentication, whether it exists or not', async () => {
    for (const server of ['vault', 'nowhere']) {
      const answer = await fetch(`${gw.url}/servers/${server}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      expect(answer.status, server).toBe(401);
    }
  });

  it('neither lists nor starts an idle gateway-mode upstream the token has no grant of', async () => {
    const lazy = `lazyvault${process.pid}`;
    const status = () => gw.server.runtime.registry.servers().find((s) => s.name === lazy)?.status;
    expect(status()).toBe('idle');
    const list = await modernCall(`${gw.url}/mcp`, 'tools/list', {}, bearer(LIMITED));
    expect(list.body.result.tools.map((t: any) => t.name).sort()).toEqual([
      'fx__echo',
      'web__echo',
    ]);
    const hidden = await modernCall(
      `${gw.url}/mcp`,
      'tools/call',
      { name: lazy, arguments: { action: 'list' } },
      bearer(LIMITED),
    );
    const missing = await modernCall(
      `${gw.url}/mcp`,
      'tools/call',
      { name: 'nothing_here', arguments: { action: 'list' } },
      bearer(LIMITED),
    );
    expect(shape(hidden, lazy)).toBe(shape(missing, 'nothing_here'));
    expect(status()).toBe('idle');
    // The admin sees it, and its call starts it.
    const admin = await modernCall(
      `${gw.url}/mcp`,
      'tools/list',
      {},
      bearer('hidden-admin-0123456789'),
    );
    expect(admin.body.result.tools.map((t: any) => t.name)).toContain(lazy);
  });
});

describe('an idle upstream on its own route', () => {
  let gw: TestGateway;
  const name = `idleroute${process.pid}`;

  beforeAll(async () => {
    gw = await startGateway({
      mcpServers: { [name]: { ...fixtureStdioConfig({ name, tools: ['echo'] }), gateway: true } },
    });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('is started by /servers/<name>/mcp: its tools are listed and called there at once', async () => {
    const status = () => gw.server.runtime.registry.servers().find((s) => s.name === name)?.status;
    expect(status()).toBe('idle');
    const url = `${gw.url}/servers/${name}/mcp`;
    const list = await modernCall(url, 'tools/list');
    expect(list.body.result.tools.map((t: any) => t.name)).toEqual(['echo']);
    const call = await modernCall(url, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
    expect(call.body.result.content[0].text).toBe('echo: hi');
    expect(status()).toBe('ok');
  });
});
