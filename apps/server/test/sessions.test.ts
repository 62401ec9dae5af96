import { createHash } from 'node:crypto';
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { afterEach, describe, expect, it } from 'vitest';
import { legacySession, startGateway, textOf, type TestGateway } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function gateway(config: Record<string, unknown> = {}): Promise<TestGateway> {
  const gw = await startGateway({
    mcpServers: { fx: fixtureStdioConfig({ tools: ['echo'] }) },
    ...config,
  } as never);
  cleanups.push(() => gw.close());
  return gw;
}

/** The GET stream of a session: its status, and the stream closed again. */
async function openStream(url: string, sessionId: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(url, {
    method: 'GET',
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    signal: controller.signal,
  });
  controller.abort();
  return response.status;
}

// mcp-remote (the stdio bridge Claude Desktop users run) sends Mcp-Method on every POST.
const MCP_REMOTE = { 'mcp-method': 'initialize' };

describe('2025-11-25 sessions', () => {
  it('are one kind whatever headers initialize carries: GET stream, reload, DELETE', async () => {
    const gw = await gateway();
    for (const headers of [{}, MCP_REMOTE]) {
      const session = await legacySession(`${gw.url}/mcp`, headers);
      const id = session.sessionId!;
      expect(id, JSON.stringify(headers)).toMatch(/^[\w-]+\.[\w-]+$/);
      expect(await openStream(`${gw.url}/mcp`, id)).toBe(200);
      await gw.server.reload();
      const echo = await session.request('tools/call', {
        name: 'fx__echo',
        arguments: { text: 'x' },
      });
      expect(textOf(echo.body.result)).toBe('echo: x');
      expect(await openStream(`${gw.url}/mcp`, id)).toBe(200);
      const gone = await fetch(`${gw.url}/mcp`, {
        method: 'DELETE',
        headers: { 'mcp-session-id': id },
      });
      expect(gone.status).toBe(200);
      expect((await session.request('tools/list')).status).toBe(404);
    }
  });

  it('work on any instance that shares the secret', async () => {
    const saved = process.env.TOOLWIRE_SESSION_SECRET;
    process.env.TOOLWIRE_SESSION_SECRET = 'a shared secret for these two instances';
    let a: TestGateway;
    let b: TestGateway;
    try {
      a = await gateway();
      b = await gateway();
    } finally {
      if (saved === undefined) delete process.env.TOOLWIRE_SESSION_SECRET;
      else process.env.TOOLWIRE_SESSION_SECRET = saved;
    }
    for (const headers of [{}, MCP_REMOTE]) {
      const session = await legacySession(`${a.url}/mcp`, headers);
      const id = session.sessionId!;
      expect(await openStream(`${b.url}/mcp`, id)).toBe(200);
      const onB = await legacySession(`${b.url}/mcp`);
      const echo = await onB.request(
        'tools/call',
        { name: 'fx__echo', arguments: { text: 'b' } },
        id,
      );
      expect(textOf(echo.body.result)).toBe('echo: b');
    }
  });

  it('carry an HMAC of the bearer token, not a hash prefix of it', async () => {
    const token = 'secret-token-1';
    const gw = await gateway({ auth: { tokens: [{ token, client: 'alice' }] } });
    const session = await legacySession(`${gw.url}/mcp`, { authorization: `Bearer ${token}` });
    const claims = JSON.parse(
      Buffer.from(session.sessionId!.split('.')[0]!, 'base64url').toString('utf8'),
    );
    const plainHash = createHash('sha256').update(token).digest('base64url');
    expect(claims.token).not.toBe('');
    expect(plainHash.startsWith(claims.token)).toBe(false);
    expect(JSON.stringify(claims)).not.toContain(plainHash.slice(0, 8));
    const other = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session.sessionId!,
        authorization: 'Bearer nope',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(other.status).toBe(401);
  });
});
