/* eslint-disable @typescript-eslint/no-explicit-any -- tests read recorded request bodies */
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, waitFor, type TestGateway } from './helpers.js';

const ADMIN = 'responses-admin-token-0123456789';

// The upstream is itself a Responses model: an OpenAI SDK client talks Responses to the gateway,
// which runs the tool loop and talks Responses to the provider.
describe('POST /v1/responses', () => {
  let fake: FakeProvider;
  let gw: TestGateway;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeProvider({ provider: 'openai-responses' });
    gw = await startGateway({
      mcpServers: { fx: fixtureStdioConfig({ tools: ['echo', 'add'] }) },
      auth: { tokens: [{ token: ADMIN, client: 'responses-sdk', allow: ['*'] }] },
      chat: {
        provider: 'openai-responses',
        baseUrl: `${fake.url}/v1`,
        apiKey: 'upstream-key',
        model: 'fake-model',
      },
    });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: ADMIN, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  it('runs the tool loop server-side and answers with a response object', async () => {
    fake.push(
      { toolCalls: [{ name: 'fx__add', arguments: { a: 19, b: 23 } }] },
      { text: 'The sum is 42.', usage: { inputTokens: 30, outputTokens: 6 } },
    );
    const response = await client.responses.create({
      model: 'fake-model',
      instructions: 'Be brief.',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Add 19 and 23.' }] }],
    });
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('The sum is 42.');
    expect(response.usage).toMatchObject({ input_tokens: 30, output_tokens: 6, total_tokens: 36 });
    expect((response as any).toolwire.toolCalls).toEqual([{ name: 'fx__add', isError: false }]);
    // Upstream, the Responses model got the gateway's tools, then the function_call_output.
    const first = fake.requests[0]!.body;
    expect(first.tools.map((t: any) => t.name)).toEqual(
      expect.arrayContaining(['calculate', 'fx__echo', 'fx__add']),
    );
    expect(first.input[0]).toMatchObject({ role: 'system', content: 'Be brief.' });
    const output = fake.requests[1]!.body.input.find(
      (item: any) => item.type === 'function_call_output',
    );
    expect(output.output).toContain('42');
    await waitFor(
      () =>
        gw.logs.find(
          (l) => l.event === 'tool_call' && l.tool === 'fx__add' && l.client === 'responses-sdk',
        ),
      'the audited call',
    );
  });

  it('streams the answer as Responses events', async () => {
    fake.push(
      { toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }] },
      { text: 'Six times seven is 42.', usage: { inputTokens: 10, outputTokens: 7 } },
    );
    const stream = await client.responses.create({
      model: 'fake-model',
      input: 'What is 6 * 7?',
      stream: true,
    });
    const types: string[] = [];
    let text = '';
    let completed: any;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(text).toBe('Six times seven is 42.');
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toEqual(
      expect.arrayContaining([
        'response.output_item.added',
        'response.output_text.done',
        'response.output_item.done',
      ]),
    );
    // The gateway's own call is listed before the answer, as an mcp_call with its output.
    expect(completed.output.map((item: any) => item.type)).toEqual(['mcp_call', 'message']);
    expect(completed.output[0]).toMatchObject({ name: 'calculate', status: 'completed' });
    expect(completed.output[0].output).toContain('42');
    expect(completed.output[1].content[0].text).toBe('Six times seven is 42.');
    expect(completed.usage.total_tokens).toBe(17);
  });

  it('refuses tools, items and ids it cannot serve with a 400 naming the field', async () => {
    // Function tools are welcome (client-tools.test.ts); the provider's own tools are not offered.
    await expect(
      client.responses.create({
        model: 'fake-model',
        input: 'hi',
        tools: [{ type: 'web_search' }],
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/tools\[0\]\.type/) });
    await expect(
      client.responses.create({
        model: 'fake-model',
        input: [{ type: 'function_call_output', call_id: 'call_1', output: '42' }],
      }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/input\[0\]: no tool call "call_1" before it/),
    });
    await expect(
      client.responses.create({
        model: 'fake-model',
        input: [{ type: 'computer_call_output', call_id: 'c', output: {} } as never],
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/input\[0\]\.type/) });
    await expect(
      client.responses.create({ model: 'fake-model', input: 'hi', previous_response_id: 'resp_x' }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/previous_response_id/),
    });
    await expect(client.responses.create({ model: 'fake-model', input: [] })).rejects.toMatchObject(
      {
        status: 400,
        message: expect.stringMatching(/input/),
      },
    );
    const unauthenticated = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'nope', maxRetries: 0 });
    await expect(
      unauthenticated.responses.create({ model: 'fake-model', input: 'hi' }),
    ).rejects.toMatchObject({ status: 401 });
    expect(fake.requests).toHaveLength(0);
  });

  it('answers 502 when the upstream model fails, and stays up', async () => {
    fake.push({ error: { status: 500 } });
    await expect(
      client.responses.create({ model: 'fake-model', input: 'hi' }),
    ).rejects.toMatchObject({
      status: 502,
    });
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
  });

  it('reports an upstream failure after the stream started as response.failed', async () => {
    fake.push({ error: { status: 500 } });
    const stream = await client.responses.create({
      model: 'fake-model',
      input: 'hi',
      stream: true,
    });
    const events: any[] = [];
    for await (const event of stream) events.push(event);
    expect(events[0].type).toBe('response.created');
    const failed = events.at(-1);
    expect(failed.type).toBe('response.failed');
    expect(failed.response.status).toBe('failed');
    expect(failed.response.error.message).toMatch(/The upstream model failed/);
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
  });
});
