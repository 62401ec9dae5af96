/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON-RPC answers */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createRegistry, loadConfig, type Registry } from '@toolwire/mcp/node';
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLeanUpstream, type LeanUpstream } from '../test/fixtures/lean-upstream.js';
import { createForwarder, type Forwarder } from './forwarder.js';
import type { ToolSource } from './tool-source.js';

// The forwarder in front of the real `@toolwire/mcp` registry: an HTTP upstream (fast path), a
// stdio upstream (through the registry's SDK client) and the registry's native tools.
describe('createForwarder with a @toolwire/mcp registry', () => {
  let lean: LeanUpstream;
  let registry: Registry;
  let forwarder: Forwarder;
  let url: string;
  let client: Client;

  beforeAll(async () => {
    lean = await startLeanUpstream();
    // The config as the app loads it (typed ToolwireConfig), handed to both unchanged.
    const config = loadConfig({
      mcpServers: { lean: { url: lean.url }, fx: fixtureStdioConfig() },
      policy: { block: ['fx__crash'] },
    });
    registry = createRegistry({ config, refreshIntervalMs: 0 });
    await registry.start();
    // Compile-time proof that the registry satisfies the forwarder's ToolSource.
    const source: ToolSource = registry;
    forwarder = createForwarder({ source, config, audit: false });
    url = (await forwarder.listen()).url;
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    await forwarder?.close();
    await registry?.close();
    await lean?.close();
  });

  it('lists native, HTTP and stdio tools together, policy applied', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['hash', 'time', 'calculate', 'lean__echo', 'fx__echo', 'fx__add']),
    );
    expect(names).not.toContain('fx__crash');
  });

  it('calls a native tool, an HTTP tool and a stdio tool', async () => {
    const native = await client.callTool({
      name: 'calculate',
      arguments: { expression: '2 + 3 * 4' },
    });
    expect(JSON.stringify(native.content)).toContain('14');
    const http = await client.callTool({ name: 'lean__echo', arguments: { text: 'fast path' } });
    expect(http.content).toEqual([{ type: 'text', text: 'fast path' }]);
    const stdio = await client.callTool({ name: 'fx__add', arguments: { a: 2, b: 40 } });
    expect(stdio.structuredContent).toEqual({ sum: 42 });
    expect(lean.received.some((r) => r.method === 'tools/call' && r.params.name === 'echo')).toBe(
      true,
    );
  });

  it('propagates a stdio upstream list_changed downstream and serves the new list', async () => {
    const changed = new Promise<void>((resolve) => {
      const off = forwarder.pipeline.onChange((server) => {
        if (server === 'fx') {
          off();
          resolve();
        }
      });
    });
    await client.callTool({ name: 'fx__change_tools', arguments: { add: 'extra' } });
    await changed;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('fx__extra');
  });

  it('answers a blocked stdio tool as a tool that does not exist', async () => {
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'fx__crash',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'fx__crash',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const body = (await response.json()) as any;
    expect(body.error).toEqual({
      code: -32602,
      message: 'Unknown tool: fx__crash',
      data: { tool: 'fx__crash' },
    });
  });
});
