/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON-RPC answers */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../src/index.js';
import {
  legacySession,
  modernCall,
  startGateway,
  textOf,
  waitFor,
  type TestGateway,
} from './helpers.js';

describe('startServer', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGateway({
      mcpServers: { fx: fixtureStdioConfig({ tools: ['echo', 'add', 'slow', 'fail'] }) },
    });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('answers /healthz, /readyz with per-upstream status, and /metrics', async () => {
    expect(await (await fetch(`${gw.url}/healthz`)).json()).toMatchObject({ status: 'ok' });
    const ready = await fetch(`${gw.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ready',
      servers: [{ name: 'fx', status: 'ok', tools: 4, transport: 'stdio' }],
    });
    await modernCall(`${gw.url}/mcp`, 'tools/call', { name: 'fx__add', arguments: { a: 1, b: 2 } });
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toMatch(/fx__add/);
  });

  it('serves 2026-07-28 statelessly on /mcp: list and call native and upstream tools', async () => {
    const list = await modernCall(`${gw.url}/mcp`, 'tools/list');
    const names = list.body.result.tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['hash', 'time', 'calculate', 'fx__echo', 'fx__add']),
    );
    const sum = await modernCall(`${gw.url}/mcp`, 'tools/call', {
      name: 'fx__add',
      arguments: { a: 2, b: 40 },
    });
    expect(sum.body.result.structuredContent).toEqual({ sum: 42 });
    expect(sum.headers.get('mcp-session-id')).toBeNull();
  });

  it('serves the 2025-11-25 session leg on /mcp with self-contained session ids', async () => {
    const session = await legacySession(`${gw.url}/mcp`);
    expect(session.init.body.result.protocolVersion).toBe('2025-11-25');
    expect(session.sessionId).toMatch(/^[\w-]+\.[\w-]+$/);
    const echo = await session.request('tools/call', {
      name: 'fx__echo',
      arguments: { text: 'hi' },
    });
    expect(textOf(echo.body.result)).toBe('echo: hi');
    const missing = await session.request('tools/list', {}, '');
    expect(missing.status).toBe(400);
    const forged = await session.request(
      'tools/list',
      {},
      `${session.sessionId!.split('.')[0]}.AAAA`,
    );
    expect(forged.status).toBe(404);
    const gone = await fetch(`${gw.url}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': session.sessionId! },
    });
    expect(gone.status).toBe(200);
    expect((await session.request('tools/list')).status).toBe(404);
  });

  it('passes one upstream through on /servers/<name>/mcp under its own names', async () => {
    const list = await modernCall(`${gw.url}/servers/fx/mcp`, 'tools/list');
    expect(list.body.result.tools.map((t: { name: string }) => t.name).sort()).toEqual([
      'add',
      'echo',
      'fail',
      'slow',
    ]);
    const legacy = await legacySession(`${gw.url}/servers/fx/mcp`);
    const echo = await legacy.request('tools/call', {
      name: 'echo',
      arguments: { text: 'direct' },
    });
    expect(textOf(echo.body.result)).toBe('echo: direct');
    // A session of one route is not valid on another.
    expect((await legacy.request('tools/list', {}, legacy.sessionId)).status).toBe(200);
    const other = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-session-id': legacy.sessionId! },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(other.status).toBe(404);
    const unknownUpstream = await fetch(`${gw.url}/servers/nope/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unknownUpstream.status).toBe(404);
  });

  it('answers malformed requests with JSON-RPC errors and stays up', async () => {
    const post = async (body: string): Promise<{ status: number; json(): Promise<any> }> =>
      fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28' },
        body,
      });
    const parse = await post('{"jsonrpc": "2.0", "id": 1, "method":');
    expect(parse.status).toBe(400);
    expect((await parse.json()).error.code).toBe(-32700);
    const batch = await post('[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]');
    expect((await batch.json()).error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/batch/i),
    });
    const shape = await post('{"hello": "world"}');
    expect((await shape.json()).error.code).toBe(-32600);
    const unknown = await modernCall(`${gw.url}/mcp`, 'tools/call', {
      name: 'nope',
      arguments: {},
    });
    expect(unknown.body.error.message).toMatch(/Unknown tool/);
    const legacyGarbage = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'not json',
    });
    expect(((await legacyGarbage.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const plain = await fetch(`${gw.url}/mcp`, { method: 'POST', body: '{}' });
    expect(plain.status).toBe(415);
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
  });

  it('writes structured JSON logs, one line per tool call', async () => {
    await modernCall(`${gw.url}/mcp`, 'tools/call', {
      name: 'fx__echo',
      arguments: { text: 'logged' },
    });
    const line = await waitFor(
      () => gw.logs.find((l) => l.event === 'tool_call' && l.tool === 'fx__echo'),
      'a tool_call log line',
    );
    expect(line).toMatchObject({
      level: 'info',
      client: 'anonymous',
      upstream: 'fx',
      outcome: 'ok',
    });
    expect(typeof line.durationMs).toBe('number');
  });
});

describe('startServer lifecycle', () => {
  it('reloads on file change without dropping a kept-alive connection or an open session', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-server-'));
    const file = join(dir, 'toolwire.config.json');
    writeFileSync(file, JSON.stringify({ nativeTools: ['hash', 'time', 'calculate'] }));
    const lines: string[] = [];
    const server = await startServer({
      configPath: file,
      port: 0,
      logStream: new Writable({
        write(chunk: Buffer, _encoding, callback) {
          lines.push(chunk.toString('utf8'));
          callback();
        },
      }),
    });
    try {
      const session = await legacySession(`${server.url}/mcp`);
      const before = await session.request('tools/list');
      expect(before.body.result.tools.map((t: { name: string }) => t.name)).toContain('calculate');
      writeFileSync(
        file,
        JSON.stringify({ nativeTools: ['hash', 'time'], policy: { block: ['hash'] } }),
      );
      await waitFor(() => lines.some((l) => l.includes('"config reloaded"')), 'the reload');
      const after = await session.request('tools/list');
      expect(after.status).toBe(200);
      expect(after.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['time']);
      // A broken file is refused and the running config stays.
      writeFileSync(file, JSON.stringify({ nativeTools: 'all' }));
      await waitFor(() => lines.some((l) => l.includes('config reload refused')), 'the refusal');
      expect((await session.request('tools/list')).body.result.tools).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('lets in-flight calls finish on close, then stops its stdio children', async () => {
    const gw = await startGateway({ mcpServers: { fx: fixtureStdioConfig({ tools: ['slow'] }) } });
    const pid = gw.server.runtime.registry.servers()[0]!.pid!;
    expect(pid).toBeGreaterThan(0);
    const slow = modernCall(`${gw.url}/mcp`, 'tools/call', {
      name: 'fx__slow',
      arguments: { ms: 600 },
    });
    await waitFor(() => gw.server.runtime.active.size > 0 || undefined, 'the call to start');
    const closing = gw.close();
    const answer = await slow;
    expect(answer.status).toBe(200);
    expect(answer.body.result.isError).not.toBe(true);
    await closing;
    expect(() => process.kill(pid, 0)).toThrow();
    await expect(fetch(`${gw.url}/healthz`)).rejects.toThrow();
  });
});
