/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON answers */
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernCall, startGateway, waitFor, type TestGateway } from './helpers.js';

// Views follow scopes: /metrics, /readyz and the dashboard's data show a limited token only its
// own tools and upstreams; an upstream's stderr (here: a crashing server printing its API key)
// is shown only to a token granted "*", with the config's env values redacted, and never logged.

const SECRET = 'sk-live-0123456789abcdef';
const ADMIN = 'views-admin-0123456789';
const LIMITED = 'views-limited-0123456789';

describe('startServer views follow the token scope', () => {
  let gw: TestGateway;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const get = async (path: string, token: string) => {
    const res = await fetch(`${gw.url}${path}`, { headers: bearer(token) });
    return { status: res.status, text: await res.text() };
  };

  beforeAll(async () => {
    const crashing = fixtureStdioConfig({
      crashOnStart: `cannot start: API_KEY=${SECRET} refused`,
    });
    gw = await startGateway({
      mcpServers: {
        fx: fixtureStdioConfig({ tools: ['echo', 'add'] }),
        vault: { ...crashing, env: { ...crashing.env, API_KEY: SECRET } },
      },
      auth: {
        tokens: [
          { token: ADMIN, client: 'admin', allow: ['*'] },
          { token: LIMITED, client: 'limited', allow: ['fx__echo'] },
        ],
      },
    });
    await waitFor(async () => {
      const ready = JSON.parse((await get('/readyz', ADMIN)).text);
      return ready.servers.find((s: any) => s.name === 'vault')?.reason ? true : undefined;
    }, 'the crashing upstream to be down');
    for (const [name, args, token] of [
      ['fx__echo', { text: 'a' }, LIMITED],
      ['fx__add', { a: 1, b: 2 }, ADMIN],
    ] as const) {
      const answer = await modernCall(
        `${gw.url}/mcp`,
        'tools/call',
        { name, arguments: args },
        bearer(token),
      );
      expect(answer.body.result, name).toBeDefined();
    }
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('/metrics shows a limited token only its own tools and upstreams', async () => {
    const limited = (await get('/metrics', LIMITED)).text;
    expect(limited).toMatch(/tool="fx__echo"/);
    expect(limited).not.toMatch(/fx__add|upstream="vault"|tools_hidden\{/);
    const admin = (await get('/metrics', ADMIN)).text;
    expect(admin).toMatch(/tool="fx__add"/);
    expect(admin).toMatch(/upstream="vault"/);
  });

  it('/readyz and /api/overview list only its upstreams, without stderr', async () => {
    for (const path of ['/readyz', '/api/overview']) {
      const body = JSON.parse((await get(path, LIMITED)).text);
      expect(
        body.servers.map((s: any) => s.name),
        path,
      ).toEqual(['fx']);
      expect(JSON.stringify(body), path).not.toMatch(/cannot start|vault/);
    }
    const overview = JSON.parse((await get('/api/overview', LIMITED)).text);
    expect(overview.tools.map((t: any) => t.name)).toEqual(['fx__echo']);
    // Its own calls only (the admin's fx__add is not counted).
    expect(overview.metrics.calls).toBe(1);
    const admin = JSON.parse((await get('/api/overview', ADMIN)).text);
    expect(admin.metrics.calls).toBe(2);
  });

  it('shows the stderr tail to a token granted "*", with env values redacted, and logs no secret', async () => {
    // The crashing upstream is retried; its reason is there whenever it is down.
    for (const path of ['/readyz', '/api/overview']) {
      const reason = await waitFor(async () => {
        const body = JSON.parse((await get(path, ADMIN)).text);
        return body.servers.find((s: any) => s.name === 'vault')?.reason as string | undefined;
      }, `${path} to show the reason`);
      expect(reason, path).toContain('cannot start: API_KEY=[redacted] refused');
    }
    const everything = [
      (await get('/readyz', ADMIN)).text,
      (await get('/api/overview', ADMIN)).text,
      (await get('/metrics', ADMIN)).text,
      JSON.stringify(gw.logs),
    ].join('\n');
    expect(gw.logs.some((line) => JSON.stringify(line).includes('[redacted]'))).toBe(true);
    expect(everything).not.toContain(SECRET);
  });
});

describe('an upstream that crashes after it started', () => {
  it('is down with its stderr redacted, and that reason shows only to a token granted "*"', async () => {
    const server = fixtureStdioConfig({
      tools: ['echo', 'crash'],
      crashStderr: `fatal: API_KEY=${SECRET} was rejected`,
    });
    const gw = await startGateway(
      {
        mcpServers: { vault: { ...server, env: { ...server.env, API_KEY: SECRET } } },
        auth: {
          tokens: [
            { token: ADMIN, client: 'admin', allow: ['*'] },
            { token: LIMITED, client: 'limited', allow: ['vault__echo'] },
          ],
        },
      },
      // No restart while the test looks: the reason stays the crash's.
      { backoff: { initialMs: 600_000, maxMs: 600_000 } },
    );
    try {
      const get = async (path: string, token: string) =>
        (await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).json();
      const crashed = await modernCall(
        `${gw.url}/mcp`,
        'tools/call',
        { name: 'vault__crash', arguments: {} },
        { authorization: `Bearer ${ADMIN}` },
      );
      expect(crashed.body.error ?? crashed.body.result?.isError).toBeTruthy();
      const vault = (body: any) => body.servers.find((s: any) => s.name === 'vault');
      const reason = await waitFor(async () => {
        const seen = vault(await get('/readyz', ADMIN));
        return seen?.status === 'down' ? (seen.reason as string) : undefined;
      }, 'the crashed upstream to be down');
      expect(reason).toContain('fatal: API_KEY=[redacted] was rejected');
      for (const path of ['/readyz', '/api/overview']) {
        const admin = await get(path, ADMIN);
        expect(JSON.stringify(admin), path).not.toContain(SECRET);
        // The limited token reaches vault__echo, so it sees the upstream, but not why it is down.
        const limited = await get(path, LIMITED);
        expect(vault(limited), path).toMatchObject({ status: 'down' });
        expect(vault(limited).reason, path).toBeUndefined();
        expect(JSON.stringify(limited), path).not.toMatch(/fatal|redacted|exited/);
      }
      expect(JSON.stringify(gw.logs)).not.toContain(SECRET);
    } finally {
      await gw.close();
    }
  });
});
