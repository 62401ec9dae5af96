// What a client can get wrong about server-to-client requests through the gateway: answers to
// requests it was never sent (forged ids, ids of another session), answers sent twice, a request it
// never answers, and a flood of roots changes. The gateway refuses, bounds and coalesces; the
// upstream is never left waiting and the gateway stays up.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers.js';
import { sampled, sdkV1Client } from './clients.js';
import { startEverything, type Everything } from './everything.js';

let everything: Everything;
let gateway: TestGateway;

beforeAll(async () => {
  everything = await startEverything();
  gateway = await startGateway({ mcpServers: { everything: { url: everything.url } } } as never, {
    clientRequestTimeoutMs: 1500,
  });
});
afterAll(async () => {
  await gateway?.close();
  await everything?.kill();
});

async function connect(onSampling?: (requestId: string | number) => void) {
  const client = new Client(
    { name: 'bad-input', version: '1' },
    { capabilities: { sampling: {}, roots: { listChanged: true } } },
  );
  let rootsAsked = 0;
  client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
    onSampling?.(extra.requestId);
    return sampled(request.params as never) as never;
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    rootsAsked++;
    return { roots: [{ uri: 'file:///srv', name: 'srv' }] };
  });
  const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`));
  await client.connect(transport);
  return { client, transport, rootsAsked: () => rootsAsked };
}

function respond(session: string, id: unknown, result: unknown = { role: 'assistant' }) {
  return fetch(`${gateway.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, result }),
  }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as { error?: { message: string } },
  }));
}

describe('server-to-client responses', () => {
  it('refuses a forged id, an id of another session, and an answer sent twice', async () => {
    let captured: string | number | undefined;
    const alice = await connect((id) => (captured = id));
    const bob = await connect();
    try {
      await alice.client.callTool({
        name: 'everything__trigger-sampling-request',
        arguments: { prompt: 'hi' },
      });
      expect(typeof captured).toBe('string');
      const forged = await respond(alice.transport.sessionId!, 'made-up.id');
      expect(forged.status).toBe(400);
      expect(forged.body.error?.message).toMatch(/no request of this session/);
      const elsewhere = await respond(bob.transport.sessionId!, captured);
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.body.error?.message).toMatch(/no request of this session/);
      const replayed = await respond(alice.transport.sessionId!, captured);
      expect(replayed.status).toBe(400);
      expect(replayed.body.error?.message).toMatch(/answered already/);
      const refused = gateway.logs.filter(
        (line) => line.event === 'server_request' && line.outcome === 'refused',
      );
      expect(refused.length).toBeGreaterThanOrEqual(3);
      // Still serving both.
      expect((await bob.client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await alice.client.close();
      await bob.client.close();
    }
  });

  it('a client that never answers: the upstream is told after the timeout and the call ends', async () => {
    const client = await sdkV1Client(`${gateway.url}/mcp`);
    client.silent = true;
    try {
      const outcome = await client
        .callTool('everything__trigger-elicitation-request', {}, { timeoutMs: 30_000 })
        .then(
          (result) => JSON.stringify(result),
          (error: Error) => error.message,
        );
      expect(outcome).toMatch(/timed out/i);
      const line = gateway.logs.find(
        (l) =>
          l.event === 'server_request' &&
          l.method === 'elicitation/create' &&
          l.error === 'timeout',
      );
      expect(line).toMatchObject({ upstream: 'everything', outcome: 'error' });
    } finally {
      await client.close();
    }
  });

  it(
    'a flood of roots changes is coalesced: the upstream asks a few times, not once per notification',
    { timeout: 180_000 },
    async () => {
      const { client, rootsAsked } = await connect();
      try {
        // The client's upstream session exists once it called something.
        await client.callTool({ name: 'everything__get-roots-list', arguments: {} });
        const before = rootsAsked();
        await Promise.all(Array.from({ length: 300 }, () => client.sendRootsListChanged()));
        await expect.poll(() => rootsAsked()).toBeGreaterThan(before);
        // Coalesced: far fewer askings than notifications.
        const calls = await client.callTool({
          name: 'everything__echo',
          arguments: { message: 'ok' },
        });
        expect(JSON.stringify(calls)).toContain('ok');
        expect(rootsAsked() - before).toBeLessThan(30);
      } finally {
        await client.close();
      }
    },
  );
});
