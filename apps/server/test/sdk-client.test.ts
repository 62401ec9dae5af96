import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, waitFor, type TestGateway } from './helpers.js';

// The official MCP SDK client against the gateway, in both protocol eras, including a session
// that outlives a config reload and the list_changed stream of the session leg.
describe('startServer with the MCP SDK client', () => {
  let gw: TestGateway;
  const clients: Client[] = [];

  async function connect(mode: 'legacy' | 'auto'): Promise<Client> {
    const client = new Client({ name: 'sdk-test', version: '1.0.0' }, {
      versionNegotiation: { mode },
    } as never);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    gw = await startGateway({
      mcpServers: { fx: fixtureStdioConfig({ tools: ['echo', 'add', 'change_tools'] }) },
    });
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await gw?.close();
  });

  for (const mode of ['legacy', 'auto'] as const) {
    it(`lists and calls tools (${mode} negotiation)`, async () => {
      const client = await connect(mode);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['calculate', 'fx__add']));
      const result = await client.callTool({ name: 'fx__add', arguments: { a: 40, b: 2 } });
      expect(result.structuredContent).toEqual({ sum: 42 });
    });
  }

  it('delivers tools/list_changed on the session GET stream when an upstream changes', async () => {
    const streams = gw.server.runtime.active.size;
    const client = await connect('legacy');
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changed++;
    });
    await client.listTools();
    // The SDK opens its GET stream after initialize: the change must find it open.
    await waitFor(() => gw.server.runtime.active.size > streams || undefined, 'the GET stream');
    await client.callTool({ name: 'fx__change_tools', arguments: { add: 'added_later' } });
    await waitFor(() => changed > 0 || undefined, 'a list_changed notification');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('fx__added_later');
  });

  it('keeps a session working across a config reload', async () => {
    const client = await connect('legacy');
    await client.listTools();
    await gw.server.reload();
    const result = await client.callTool({ name: 'calculate', arguments: { expression: '1 + 1' } });
    expect(JSON.stringify(result.content)).toContain('2');
  });
});
