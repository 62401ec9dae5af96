import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startConformanceUpstream,
  type RunningFixture,
} from '../test/fixtures/conformance-upstream.js';
import { startLeanUpstream, type LeanUpstream } from '../test/fixtures/lean-upstream.js';
import { createHttpToolSource, type HttpToolSource } from '../test/helpers/http-tool-source.js';
import { createForwarder, type Forwarder } from './forwarder.js';

// Resources and prompts through the aggregated /mcp route, with two upstreams of which only one
// has any: prompts are namespaced like tools, resources keep their URIs and find their owner.
describe('createForwarder aggregated resources and prompts', () => {
  let conf: RunningFixture;
  let lean: LeanUpstream;
  let source: HttpToolSource;
  let forwarder: Forwarder;
  let client: Client;

  beforeAll(async () => {
    conf = await startConformanceUpstream();
    lean = await startLeanUpstream();
    source = createHttpToolSource({ conf: conf.url, lean: lean.url });
    await source.start();
    forwarder = createForwarder({
      source,
      config: {
        mcpServers: { conf: { url: conf.url }, lean: { url: lean.url } },
        policy: { block: ['conf__test_prompt_with_image'] },
      },
      audit: false,
    });
    const { url } = await forwarder.listen();
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  });

  afterAll(async () => {
    await client?.close();
    await forwarder?.close();
    await source?.close();
    await lean?.close();
    await conf?.close();
  });

  it('reads a resource by URI before any listing, routed to the upstream that has it', async () => {
    const result = await client.readResource({ uri: 'test://static-text' });
    expect(result.contents[0]).toMatchObject({
      uri: 'test://static-text',
      text: 'This is the content of the static text resource.',
    });
    const templated = await client.readResource({ uri: 'test://template/42/data' });
    expect(JSON.parse(String((templated.contents[0] as { text: string }).text))).toMatchObject({
      id: '42',
    });
  });

  it('lists prompts namespaced, with policy applied, and gets one', async () => {
    const { prompts } = await client.listPrompts();
    const names = prompts.map((p) => p.name);
    expect(names).toContain('conf__test_simple_prompt');
    expect(names).not.toContain('conf__test_prompt_with_image');
    const prompt = await client.getPrompt({
      name: 'conf__test_prompt_with_arguments',
      arguments: { arg1: 'a', arg2: 'b' },
    });
    expect(JSON.stringify(prompt.messages)).toContain("arg1='a'");
    // A blocked prompt is answered as one that does not exist.
    await expect(client.getPrompt({ name: 'conf__test_prompt_with_image' })).rejects.toThrow(
      /Unknown prompt: conf__test_prompt_with_image/,
    );
  });

  it('lists resources from every upstream that has them, skipping one that has none', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining(['test://static-text', 'test://static-binary']),
    );
  });
});
