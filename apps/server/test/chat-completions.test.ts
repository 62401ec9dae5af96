/* eslint-disable @typescript-eslint/no-explicit-any -- tests read recorded request bodies */
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, waitFor, type TestGateway } from './helpers.js';

const ADMIN = 'chat-admin-token-0123456789';
const LIMITED = 'chat-limited-token-0123456789';

describe('POST /v1/chat/completions', () => {
  let fake: FakeProvider;
  let gw: TestGateway;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeProvider({ provider: 'openai' });
    gw = await startGateway({
      mcpServers: { fx: fixtureStdioConfig({ tools: ['echo', 'add'] }) },
      auth: {
        tokens: [
          { token: ADMIN, client: 'openai-sdk', allow: ['*'] },
          { token: LIMITED, client: 'limited', allow: ['chat', 'calculate'] },
        ],
      },
      chat: {
        provider: 'openai',
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

  it('runs the tool loop server-side for a plain OpenAI client', async () => {
    fake.push(
      { toolCalls: [{ name: 'fx__add', arguments: { a: 19, b: 23 } }] },
      { text: 'The sum is 42.', usage: { inputTokens: 30, outputTokens: 6 } },
    );
    const answer = await client.chat.completions.create({
      model: 'fake-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Add 19 and 23 with the tool.' },
      ],
    });
    expect(answer.object).toBe('chat.completion');
    expect(answer.choices[0]!.message.content).toBe('The sum is 42.');
    expect(answer.choices[0]!.finish_reason).toBe('stop');
    expect((answer as any).toolwire.toolCalls).toEqual([{ name: 'fx__add', isError: false }]);
    // The upstream model saw the gateway's tools, then the tool result.
    const first = fake.requests[0]!.body;
    expect(first.model).toBe('fake-model');
    expect(first.tools.map((t: any) => t.function.name)).toEqual(
      expect.arrayContaining(['calculate', 'fx__echo', 'fx__add']),
    );
    expect(first.messages[0]).toMatchObject({ role: 'system', content: 'Be brief.' });
    const second = fake.requests[1]!.body;
    expect(JSON.stringify(second.messages.at(-1))).toContain('42');
    // The call went through the gateway's pipeline as this client.
    await waitFor(
      () =>
        gw.logs.find(
          (l) => l.event === 'tool_call' && l.tool === 'fx__add' && l.client === 'openai-sdk',
        ),
      'the audited call',
    );
  });

  it('streams the answer as chat.completion.chunk events', async () => {
    fake.push(
      { toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }] },
      { text: 'Six times seven is 42.', usage: { inputTokens: 10, outputTokens: 7 } },
    );
    const stream = await client.chat.completions.create({
      model: 'fake-model',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'What is 6 * 7?' }],
    });
    let text = '';
    let finish: string | null = null;
    let usage: any;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('Six times seven is 42.');
    expect(finish).toBe('stop');
    expect(usage.total_tokens).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(2);
  });

  it('offers a token only the tools it allows', async () => {
    fake.push({ text: 'ok' });
    const limited = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: LIMITED, maxRetries: 0 });
    await limited.chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(fake.requests[0]!.body.tools.map((t: any) => t.function.name)).toEqual(['calculate']);
  });

  it('refuses bad requests with a 400 naming the field', async () => {
    await expect(
      client.chat.completions.create({
        model: 'fake-model',
        messages: [{ role: 'user', content: 'hi' }],
        // Client tools are welcome (client-tools.test.ts), but not under a gateway tool's name.
        tools: [
          { type: 'function', function: { name: 'fx__add', parameters: { type: 'object' } } },
        ],
      }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/tools\[0\]\.function\.name/),
    });
    await expect(
      client.chat.completions.create({ model: 'fake-model', messages: [] }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/messages/) });
    const unauthenticated = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'nope', maxRetries: 0 });
    await expect(
      unauthenticated.chat.completions.create({
        model: 'x',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).rejects.toMatchObject({ status: 401 });
    expect(fake.requests).toHaveLength(0);
  });

  it('answers 502 when the upstream model fails, and stays up', async () => {
    fake.push({ error: { status: 500 } });
    await expect(
      client.chat.completions.create({
        model: 'fake-model',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).rejects.toMatchObject({ status: 502 });
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
  });

  it('gives the model execute_code when code mode is on, running through the gateway', async () => {
    const coded = await startGateway({
      nativeTools: ['calculate', 'hash'],
      codeMode: { enabled: true, excludedTools: ['hash'] },
      chat: { provider: 'openai', baseUrl: `${fake.url}/v1`, apiKey: 'k', model: 'fake-model' },
    });
    try {
      fake.push(
        {
          toolCalls: [
            {
              name: 'execute_code',
              arguments: {
                code: "const r = await tools.calculate({ expression: '6 * 7' }); return r;",
              },
            },
          ],
        },
        { text: '42' },
      );
      const res = await fetch(`${coded.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: '6 * 7?' }] }),
      });
      expect(res.status).toBe(200);
      const names = fake.requests[0]!.body.tools.map((t: any) => t.function.name).sort();
      expect(names).toEqual(['execute_code', 'hash']);
      expect(JSON.stringify(fake.requests[1]!.body.messages.at(-1))).toContain('42');
      await waitFor(
        () => coded.logs.find((l) => l.event === 'tool_call' && l.tool === 'calculate'),
        'the calculate call made by the code, audited by the gateway',
      );
    } finally {
      await coded.close();
    }
  });

  it('decides code mode per model from codeMode.models (the request model picks it)', async () => {
    const perModel = await startGateway({
      nativeTools: ['calculate', 'hash'],
      codeMode: { defaults: { enabled: true }, models: [{ match: 'small-*', enabled: false }] },
      chat: { provider: 'openai', baseUrl: `${fake.url}/v1`, apiKey: 'k', model: 'fake-model' },
    });
    try {
      fake.push({ text: 'big' }, { text: 'small' });
      for (const model of ['big-model', 'small-3b']) {
        const res = await fetch(`${perModel.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
        });
        expect(res.status).toBe(200);
      }
      const offered = fake.requests.map((request) =>
        request.body.tools.map((t: any) => t.function.name).sort(),
      );
      expect(offered).toEqual([['execute_code'], ['calculate', 'hash']]);
    } finally {
      await perModel.close();
    }
  });

  it('says what to configure when there is no chat section', async () => {
    const bare = await startGateway({ nativeTools: ['calculate'] });
    try {
      const res = await fetch(`${bare.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
      });
      // OpenAI's error shape and a status SDKs do not retry: nothing changes until the config does.
      expect(res.status).toBe(400);
      const body = (await res.json()) as any;
      expect(Object.keys(body)).toEqual(['error']);
      expect(body.error).toEqual({
        message: expect.stringMatching(/"chat" section/),
        type: 'invalid_request_error',
        param: null,
        code: 'model_not_configured',
      });
      let requests = 0;
      const sdk = new OpenAI({
        baseURL: `${bare.url}/v1`,
        apiKey: 'unused',
        maxRetries: 2,
        fetch: (input, init) => {
          requests++;
          return fetch(input, init);
        },
      });
      await expect(
        sdk.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      ).rejects.toMatchObject({
        status: 400,
        code: 'model_not_configured',
        type: 'invalid_request_error',
      });
      expect(requests).toBe(1);
      const wrongMethod = await fetch(`${bare.url}/v1/chat/completions`);
      expect(((await wrongMethod.json()) as any).error).toEqual({
        message: 'Use POST',
        type: 'invalid_request_error',
        param: null,
        code: null,
      });
    } finally {
      await bare.close();
    }
  });
});
