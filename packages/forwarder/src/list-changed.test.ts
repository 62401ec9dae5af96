import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createForwarder } from './forwarder.js';
import { serveStdio } from './stdio-server.js';
import type { ToolSource } from './tool-source.js';

type ListListener = (event: { server: string; kind: 'tools' | 'prompts' | 'resources' }) => void;

/** The smallest source that can announce prompt and resource changes. */
function stubSource(): ToolSource & { emit(kind: 'prompts' | 'resources', server: string): void } {
  const listeners = new Set<ListListener>();
  return {
    listTools: () => [],
    servers: () => [{ name: 'up', status: 'ok' as const, tools: 0 }],
    callTool: async () => ({ content: [] }),
    resolve: () => undefined,
    onToolsChanged: () => () => undefined,
    onListChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit(kind, server) {
      for (const listener of listeners) listener({ server, kind });
    },
  };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('createForwarder', () => {
  it('passes prompts and resources list_changed on to an open 2025-era GET stream', async () => {
    const source = stubSource();
    const forwarder = createForwarder({ source, config: {} });
    const { url, close } = await forwarder.listen();
    cleanups.push(() => forwarder.close(), close);
    const init = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        },
      }),
    });
    const session = init.headers.get('mcp-session-id')!;
    expect(session).toMatch(/^\S+$/);
    await init.text();
    const controller = new AbortController();
    cleanups.push(() => controller.abort());
    const stream = await fetch(`${url}/mcp`, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      },
      signal: controller.signal,
    });
    const reader = stream.body!.getReader();
    await reader.read(); // the stream's opening
    source.emit('prompts', 'up');
    source.emit('resources', 'up');
    let text = '';
    while (!text.includes('resources/list_changed')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain('"method":"notifications/prompts/list_changed"');
    expect(text).toContain('"method":"notifications/resources/list_changed"');
  });

  it('passes them on over stdio, and stops after close', async () => {
    const source = stubSource();
    const forwarder = createForwarder({ source, config: {} });
    cleanups.push(() => forwarder.close());
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: string[] = [];
    output.on('data', (chunk: Buffer) =>
      lines.push(...chunk.toString().split('\n').filter(Boolean)),
    );
    const stdio = serveStdio(forwarder, input, output);
    source.emit('prompts', 'up');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => JSON.parse(line).method)).toEqual([
      'notifications/prompts/list_changed',
    ]);
    stdio.close();
    source.emit('resources', 'up');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
  });
});
