// An upstream's JSON-RPC errors reach the client as the upstream wrote them (code, message), on
// `/mcp` and on `/servers/<name>/mcp`: differential against the reference server itself.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from './helpers.js';

// No `main` or `exports`: its bin is the entry.
const EVERYTHING = join(
  dirname(
    createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json'),
  ),
  'dist',
  'index.js',
);
const MISSING_URI = 'demo://resource/static/document/no-such-file.md';

/** What a client learns from a failed request: the JSON-RPC code and message. */
async function failure(request: Promise<unknown>): Promise<{ code: unknown; message: string }> {
  try {
    await request;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message: string };
    return { code, message };
  }
  throw new Error('the request succeeded');
}

describe('upstream JSON-RPC errors', () => {
  let gw: TestGateway;
  const clients: Client[] = [];

  async function connect(transport: Parameters<Client['connect']>[0]): Promise<Client> {
    const client = new Client({ name: 'upstream-errors-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    gw = await startGateway({
      nativeTools: ['calculate'],
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
      },
    });
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await gw?.close();
  });

  it('passes -32602 "not found" through with its own code and message, on both routes', async () => {
    const direct = await connect(
      new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'] }),
    );
    const expected = await failure(direct.readResource({ uri: MISSING_URI }));
    expect(expected.code).toBe(-32602);
    const expectedPrompt = await failure(direct.getPrompt({ name: 'no-such-prompt' }));
    expect(expectedPrompt.code).toBe(-32602);

    const aggregated = await connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
    const perServer = await connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/servers/everything/mcp`)),
    );
    for (const client of [aggregated, perServer]) {
      const read = await failure(client.readResource({ uri: MISSING_URI }));
      expect(read).toEqual(expected);
      expect(read.message).not.toMatch(/Internal error/);
    }
    expect(await failure(perServer.getPrompt({ name: 'no-such-prompt' }))).toEqual(expectedPrompt);
    expect(await failure(aggregated.getPrompt({ name: 'everything__no-such-prompt' }))).toEqual(
      expectedPrompt,
    );
    // The gateway is still up, and the upstream still answers.
    const { resources } = await perServer.listResources();
    expect(resources.length).toBeGreaterThan(0);
  });
});
