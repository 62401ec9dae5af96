import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createForwarder, type Forwarder } from './forwarder.js';
import type { ToolSource } from './tool-source.js';

const source: ToolSource = {
  listTools: () => [
    {
      name: 'fx__echo',
      originalName: 'echo',
      source: 'fx',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    },
  ],
  servers: () => [{ name: 'fx', status: 'ok', tools: 1 }],
  resolve: () => undefined,
  onToolsChanged: () => () => {},
  callTool: async (_name, args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
};

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

async function serve(options: { allowedHosts?: string[] } = {}): Promise<{
  url: string;
  forwarder: Forwarder;
}> {
  const forwarder = createForwarder({ source, audit: false, probeIntervalMs: 0, ...options });
  const { url, close } = await forwarder.listen();
  closers.push(() => forwarder.close(), close);
  return { url, forwarder };
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
};

describe('the streamable HTTP front end', () => {
  it('opens a 2025-era session on initialize, serves it, and ends it on DELETE', async () => {
    const { url } = await serve();
    const opened = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify(initialize),
    });
    const session = opened.headers.get('mcp-session-id')!;
    expect(session).toEqual(expect.any(String));
    const headers = { ...JSON_HEADERS, 'mcp-session-id': session };
    const call = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'fx__echo', arguments: { text: 'hi' } },
      }),
    });
    expect(((await call.json()) as { result: unknown }).result).toEqual({
      content: [{ type: 'text', text: '{"text":"hi"}' }],
    });
    expect((await fetch(`${url}/mcp`, { method: 'DELETE', headers })).status).toBe(200);
    const after = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
  });

  it('checks each request once: Host, Content-Type, Accept, method', async () => {
    const { url } = await serve();
    const post = (headers: Record<string, string>) =>
      fetch(`${url}/mcp`, { method: 'POST', headers, body: JSON.stringify(initialize) });
    expect((await post({ ...JSON_HEADERS, origin: 'http://evil.example' })).status).toBe(403);
    expect((await post({ 'content-type': 'text/plain', accept: 'application/json' })).status).toBe(
      415,
    );
    expect((await post({ 'content-type': 'application/json', accept: 'text/html' })).status).toBe(
      406,
    );
    const put = await fetch(`${url}/mcp`, { method: 'PUT', headers: JSON_HEADERS, body: '{}' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
  });

  it('answers a body that is not JSON with a parse error', async () => {
    const { url } = await serve();
    const answer = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: '{not json',
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: { code: -32700 } });
  });

  it('routes /servers/<name>/mcp to that upstream, and refuses an upstream it does not have', async () => {
    const { url } = await serve();
    const listed = await fetch(`${url}/servers/fx/mcp`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify(initialize),
    });
    expect(listed.status).toBe(200);
    const missing = await fetch(`${url}/servers/nope/mcp`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify(initialize),
    });
    expect(missing.status).toBe(404);
    const malformed = await fetch(`${url}/servers/%E0%A4%A/mcp`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify(initialize),
    });
    expect(malformed.status).toBe(400);
  });

  it('answers 503 once the forwarder is closed', async () => {
    const forwarder = createForwarder({ source, audit: false, probeIntervalMs: 0 });
    await forwarder.close();
    // Mounted in an app's own server, which outlives it (a reload swaps forwarders).
    const server = createServer((req, res) => forwarder.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const answer = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify(initialize),
    });
    expect(answer.status).toBe(503);
    expect(await answer.json()).toMatchObject({
      error: { message: 'The forwarder is shutting down' },
    });
  });
});
