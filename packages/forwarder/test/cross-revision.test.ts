// A 2025-11-25 client of a 2026-07-28 upstream through /mcp: the upstream asks with input_required
// results; the client, which knows only server-to-client requests, is asked those, and the call is
// retried upstream with its answers (and the upstream's requestState, unchanged).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createForwarder, type Forwarder } from '../src/index.js';
import { startConformanceUpstream, type RunningFixture } from './fixtures/conformance-upstream.js';
import { createHttpToolSource, type HttpToolSource } from './helpers/http-tool-source.js';

let upstream: RunningFixture;
let source: HttpToolSource;
let forwarder: Forwarder;
let url: string;

beforeAll(async () => {
  upstream = await startConformanceUpstream();
  source = createHttpToolSource({ conf: upstream.url });
  await source.start();
  forwarder = createForwarder({
    source,
    config: { mcpServers: { conf: { url: upstream.url } } },
    audit: false,
  });
  url = `${(await forwarder.listen()).url}/mcp`;
});

afterAll(async () => {
  await forwarder?.close();
  await source?.close();
  await upstream?.close();
});

async function legacyClient(asked: string[]): Promise<Client> {
  const client = new Client({ name: 'legacy', version: '1' }, {
    capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } },
    versionNegotiation: { mode: 'legacy' },
  } as never);
  client.setRequestHandler('elicitation/create', async () => {
    asked.push('elicitation/create');
    return { action: 'accept', content: { name: 'Ada' } } as never;
  });
  client.setRequestHandler('sampling/createMessage', async () => {
    asked.push('sampling/createMessage');
    return {
      role: 'assistant',
      content: { type: 'text', text: 'Hello!' },
      model: 'm',
      stopReason: 'endTurn',
    } as never;
  });
  client.setRequestHandler('roots/list', async () => {
    asked.push('roots/list');
    return { roots: [{ uri: 'file:///srv', name: 'srv' }] } as never;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const text = (result: unknown): string =>
  ((result as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text).join('');

describe('a 2025-11-25 client of a 2026-07-28 upstream', () => {
  it('is asked what the upstream asks with input_required, over as many rounds as it takes', async () => {
    const asked: string[] = [];
    const client = await legacyClient(asked);
    try {
      const call = (name: string) => client.callTool({ name: `conf__${name}`, arguments: {} });
      expect(text(await call('test_input_required_result_elicitation'))).toBe('Hello, Ada!');
      expect(text(await call('test_input_required_result_sampling'))).toBe('Sampled: Hello!');
      expect(text(await call('test_input_required_result_list_roots'))).toBe('Roots: file:///srv');
      expect(text(await call('test_input_required_result_request_state'))).toBe(
        'State verified; done.',
      );
      expect(text(await call('test_input_required_result_multiple_inputs'))).toBe(
        'All three inputs received.',
      );
      expect(text(await call('test_input_required_result_multi_round'))).toBe(
        'Completed after two rounds.',
      );
      expect(new Set(asked)).toEqual(
        new Set(['elicitation/create', 'sampling/createMessage', 'roots/list']),
      );
    } finally {
      await client.close();
    }
  });

  it("a client without the capability: the call fails with the upstream's protocol answer, never hangs", async () => {
    const client = new Client({ name: 'bare', version: '1' }, {
      versionNegotiation: { mode: 'legacy' },
    } as never);
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      await expect(
        client.callTool({ name: 'conf__test_input_required_result_elicitation', arguments: {} }),
      ).rejects.toThrow(/input|capabilit/i);
    } finally {
      await client.close();
    }
  });
});
