import { pick, seededRandom, testSeed } from '@toolwire/testing/random';
import {
  Client,
  InMemoryTransport,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { callToolResultSchema, RegistryClient, type ResultCodec } from './registry-client.js';

/** The 2025-era codec the SDK validates results with (a role class may read it). */
class CodecReader extends Client {
  codec(): ResultCodec {
    return this._wireCodec() as ResultCodec;
  }
}
const legacyCodec = new CodecReader({ name: 'codec', version: '1.0.0' }).codec();

/** Results as servers send them, right and wrong: every member the schema reads, and some it does not. */
function anyResult(next: () => number, objectsOnly = false): unknown {
  const block = (): unknown =>
    pick(next, [
      { type: 'text', text: 'hello' },
      { type: 'text', text: '' },
      { type: 'text', text: 'x', annotations: { priority: 1 } },
      { type: 'text', text: 'x', extra: true },
      { type: 'text', text: 'x', _meta: { a: 1 } },
      { type: 'text' },
      { type: 'text', text: 3 },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'resource_link', uri: 'file:///a', name: 'a' },
      { type: 'resource', resource: { uri: 'file:///a', text: 'a' } },
      { type: 'unknown' },
      'text',
      null,
    ]);
  const result: Record<string, unknown> = {};
  if (next() < 0.9)
    result.content =
      next() < 0.9 ? Array.from({ length: Math.floor(next() * 3) }, block) : pick(next, ['x', {}]);
  if (next() < 0.2) result.isError = pick(next, [true, false, 'true', 1]);
  if (next() < 0.2) result.structuredContent = pick(next, [{ a: 1 }, [1], 'x', null, {}]);
  if (next() < 0.1) result._meta = objectsOnly ? { a: 1 } : pick(next, [{ a: 1 }, 'x']);
  if (next() < 0.1) result[pick(next, ['toolResult', 'tools', 'messages', 'other'])] = [];
  // A result that is not an object is not a JSON-RPC response (the transport refuses it).
  if (!objectsOnly && next() < 0.05) return pick(next, [null, [], 'x', 1]);
  return JSON.parse(JSON.stringify(result));
}

describe('callToolResultSchema', () => {
  it('answers what the SDK codec answers for every result (5,000 generated): same value, same error', async () => {
    const seed = testSeed(20261124);
    const next = seededRandom(seed);
    const schema = callToolResultSchema(legacyCodec);
    let accepted = 0;
    for (let i = 0; i < 5_000; i++) {
      const value = anyResult(next);
      const expected = legacyCodec.validateResult('tools/call', value);
      const got = await schema['~standard'].validate(value);
      const want =
        expected.ok === true
          ? { value: expected.value }
          : { issues: [{ message: expected.reason === 'invalid' ? expected.message : '' }] };
      expect({ seed, i, value, got }).toStrictEqual({ seed, i, value, got: want });
      if ('value' in got) accepted++;
    }
    expect(accepted).toBeGreaterThan(500);
    expect(accepted).toBeLessThan(4_500);
  });
});

/** A 2025-11-25 server on the other end of `transport` that answers each tools/call with the next result. */
function rawServer(transport: Transport, results: unknown[]): void {
  let n = 0;
  transport.onmessage = (message: JSONRPCMessage) => {
    if (!('id' in message) || !('method' in message)) return;
    const answer = (body: Record<string, unknown>): void =>
      void transport.send({ jsonrpc: '2.0', id: message.id, ...body } as JSONRPCMessage);
    if (message.method === 'initialize')
      answer({
        result: {
          protocolVersion: '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: { name: 'raw', version: '1.0.0' },
        },
      });
    else if (message.method === 'tools/call') answer({ result: results[n++ % results.length] });
    else answer({ error: { code: -32601, message: 'Method not found' } });
  };
}

async function connected<C extends Client>(client: C, results: unknown[]): Promise<C> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  rawServer(serverSide, results);
  await serverSide.start();
  await client.connect(clientSide);
  return client;
}

describe('RegistryClient.callToolResult', () => {
  it('resolves and rejects as Client.callTool does, result by result, on a 2025-11-25 connection', async () => {
    const next = seededRandom(7);
    const results = Array.from({ length: 300 }, () => anyResult(next, true));
    const options = { versionNegotiation: { mode: 'legacy' } } as never;
    const sdk = await connected(new Client({ name: 'sdk', version: '1.0.0' }, options), results);
    const ours = await connected(
      new RegistryClient({ name: 'ours', version: '1.0.0' }, options),
      results,
    );
    expect(ours.getProtocolEra()).toBe('legacy');
    const outcome = (p: Promise<unknown>) =>
      p.then(
        (value) => ({ value }),
        (error: Error) => ({ error: `${error.constructor.name}: ${error.message}` }),
      );
    let rejected = 0;
    for (const _ of results) {
      const params = { name: 'echo', arguments: { text: 'x' } };
      const expected = await outcome(sdk.callTool(params, { timeout: 5_000 }));
      expect(await outcome(ours.callToolResult(params, { timeout: 5_000 }))).toStrictEqual(
        expected,
      );
      if ('error' in expected) rejected++;
    }
    expect(rejected).toBeGreaterThan(10);
    await sdk.close();
    await ours.close();
  });
});
