import {
  collectStream,
  parseToolArguments,
  textResult,
  type Message,
  type ToolSpec,
} from '@toolwire/schema';
import {
  startFakeProvider,
  wireFixture,
  wireFixtureJson,
  type FakeProvider,
} from '@toolwire/testing/providers';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAI, createXai, type OpenAIProviderSettings } from './index.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ provider: 'openai' });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
});

const openai = (settings: OpenAIProviderSettings = {}) =>
  createOpenAI({
    baseURL: `${fake.url}/v1`,
    apiKey: 'sk-test',
    provider: 'openai',
    maxRetries: 0,
    ...settings,
  });

const weather: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      city: { type: 'string', minLength: 1 },
      units: { type: 'string', enum: ['c', 'f'] },
    },
    required: ['city'],
  },
};

async function error(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (caught) {
    return caught;
  }
  throw new Error('expected a failure');
}

describe('createOpenAI', () => {
  it('sends exactly the body the request describes', async () => {
    fake.push({ text: 'ok' });
    await openai()('gpt-5-mini').generate({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
      ],
      tools: [weather],
      toolChoice: 'required',
      parallelToolCalls: false,
      maxOutputTokens: 200,
      temperature: 0.2,
      topP: 0.9,
      stopSequences: ['END'],
      providerOptions: {
        openai: { user: 'u-1', reasoning_effort: 'low' },
        anthropic: { ignored: true },
      },
    });
    expect(fake.lastBody()).toEqual({
      model: 'gpt-5-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Current weather for a city',
            parameters: {
              type: 'object',
              properties: {
                city: { type: 'string', minLength: 1 },
                units: { type: 'string', enum: ['c', 'f'] },
              },
              required: ['city'],
            },
          },
        },
      ],
      tool_choice: 'required',
      parallel_tool_calls: false,
      max_completion_tokens: 200,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END'],
      user: 'u-1',
      reasoning_effort: 'low',
    });
    const request = fake.requests[0]!;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe('Bearer sk-test');
  });

  it('reports every schema change as a warning', async () => {
    fake.push({ text: 'ok' });
    const response = await openai()('gpt-5-mini').generate({
      messages: [{ role: 'user', content: 'hi' }],
      tools: [weather],
    });
    expect(response.warnings).toEqual([
      expect.objectContaining({
        type: 'schema-changed',
        toolName: 'get_weather',
        pointer: '/$schema',
      }),
    ]);
  });

  it('resends a recorded conversation exactly as the OpenAI follow-up transcript', async () => {
    fake.push({ raw: wireFixture('openai-chat-tools.json') }, { text: 'done' });
    const expected = wireFixtureJson('openai-chat-tools-followup-request.json') as {
      model: string;
      messages: Array<Record<string, unknown>>;
      tools: Array<{ function: ToolSpec & { parameters: ToolSpec['inputSchema'] } }>;
    };
    const tools: ToolSpec[] = expected.tools.map((tool) => ({
      name: tool.function.name,
      description: tool.function.description,
      inputSchema: tool.function.parameters,
    }));
    const model = openai()(expected.model);
    const users: Message[] = [
      { role: 'user', content: "What's the weather like in Edinburgh?" },
      { role: 'user', content: "What's the price of AAPL?" },
    ];
    const first = await model.generate({ messages: users, tools });
    expect(first.finishReason).toBe('tool-calls');
    const [weatherCall, stockCall] = first.toolCalls;
    await model.generate({
      messages: [
        ...users,
        { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
        {
          role: 'tool',
          results: [
            textResult(weatherCall!.id, weatherCall!.name, '{"temperature": 9, "units": "c"}'),
            textResult(stockCall!.id, stockCall!.name, 'Error: upstream quote service unavailable'),
          ],
        },
      ],
      tools,
    });
    // The transcript shows the array form of tool content for the second result; a string is the same message.
    const expectedMessages = expected.messages.map((message) =>
      Array.isArray(message.content)
        ? {
            ...message,
            content: (message.content as Array<{ text: string }>)
              .map((part) => part.text)
              .join('\n'),
          }
        : message,
    );
    expect(fake.lastBody()).toEqual({ ...expected, messages: expectedMessages });
  });

  it('sends an image tool result as text plus a user message with the image, and warns', async () => {
    fake.push({ text: 'a chart' }, { text: 'a chart' });
    const messages: Message[] = [
      { role: 'user', content: 'Show the chart' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      },
      {
        role: 'tool',
        results: [
          {
            toolCallId: 'call_1',
            toolName: 'get_weather',
            isError: false,
            content: [
              { type: 'text', text: 'chart:' },
              { type: 'image', data: 'QUJD', mediaType: 'image/png' },
            ],
          },
        ],
      },
    ];
    const response = await openai()('gpt-5-mini').generate({ messages, tools: [weather] });
    expect(fake.lastBody().messages).toEqual([
      { role: 'user', content: 'Show the chart' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call_1',
        content: 'chart:\n[image (image/png, 3 bytes) attached in the next user message]',
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Images returned by tool "get_weather" (call call_1):' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,QUJD' } },
        ],
      },
    ]);
    expect(response.warnings.map((warning) => warning.type)).toContain('image-as-text');

    await openai()('local-model', { imageToolResults: 'text' }).generate({
      messages,
      tools: [weather],
    });
    const body = fake.lastBody() as { messages: unknown[] };
    expect(body.messages).toHaveLength(3);
    expect(body.messages[2]).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content:
        'chart:\n[image (image/png, 3 bytes) not shown: this model does not accept images in tool results]',
    });
  });

  it('marks failed results in the text, since tool messages have no error flag', async () => {
    fake.push({ text: 'sorry' });
    await openai()('m').generate({
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c', name: 'get_weather', arguments: {} }],
        },
        {
          role: 'tool',
          results: [
            {
              toolCallId: 'c',
              toolName: 'get_weather',
              isError: true,
              content: [{ type: 'text', text: 'city not found' }],
            },
          ],
        },
      ],
      tools: [weather],
    });
    expect((fake.lastBody().messages as unknown[])[2]).toEqual({
      role: 'tool',
      tool_call_id: 'c',
      content: 'Tool execution failed: city not found',
    });
  });

  it('repairs a transcript with a call left without a result, and reports it', async () => {
    fake.push({ text: 'ok' });
    const response = await openai()('m').generate({
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
        },
        { role: 'user', content: 'never mind' },
      ],
      tools: [weather],
    });
    const messages = fake.lastBody().messages as Array<{
      role: string;
      tool_call_id?: string;
      content: string;
    }>;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(messages[2]).toMatchObject({
      tool_call_id: 'c1',
      content: expect.stringContaining('cancelled'),
    });
    expect(response.warnings.map((warning) => warning.type)).toContain('transcript-repaired');
  });

  describe('strict tools', () => {
    it('sends eligible tools strict and tells callers to read null as absent', async () => {
      fake.push({
        toolCalls: [{ id: 'c', name: 'get_weather', arguments: { city: 'Paris', units: null } }],
      });
      const response = await openai()('gpt-5-mini', { strictTools: true }).generate({
        messages: [{ role: 'user', content: 'x' }],
        tools: [weather],
      });
      const tool = (fake.lastBody().tools as Array<{ function: Record<string, unknown> }>)[0]!
        .function;
      expect(tool).toEqual({
        name: 'get_weather',
        description: 'Current weather for a city',
        strict: true,
        parameters: {
          type: 'object',
          properties: {
            city: { type: 'string', minLength: 1 },
            units: { type: ['string', 'null'], enum: ['c', 'f', null] },
          },
          required: ['city', 'units'],
          additionalProperties: false,
        },
      });
      expect(response.warnings.map((warning) => warning.pointer)).toEqual(
        expect.arrayContaining(['/properties/units', '/additionalProperties']),
      );
      expect(response.providerMetadata).toEqual({
        openai: { nullMeansAbsent: true, strictTools: ['get_weather'] },
      });
      const call = response.toolCalls[0]!;
      expect(call.providerMetadata).toEqual({ openai: { nullMeansAbsent: true } });
      const parsed = parseToolArguments(weather.inputSchema, call.arguments, {
        nullMeansAbsent: true,
      });
      expect(parsed).toMatchObject({ success: true, value: { city: 'Paris' } });
    });

    it('falls back to non-strict for a schema strict mode cannot express, with a warning', async () => {
      fake.push({ text: 'ok' });
      const freeForm: ToolSpec = {
        name: 'put',
        description: 'Stores any object',
        inputSchema: {
          type: 'object',
          properties: { data: { type: 'object', additionalProperties: true } },
          required: ['data'],
        },
      };
      const response = await openai()('gpt-5-mini', { strictTools: true }).generate({
        messages: [{ role: 'user', content: 'x' }],
        tools: [freeForm],
      });
      expect(
        (fake.lastBody().tools as Array<{ function: { strict: boolean } }>)[0]!.function.strict,
      ).toBe(false);
      expect(response.warnings).toContainEqual(
        expect.objectContaining({
          type: 'schema-changed',
          toolName: 'put',
          message: expect.stringContaining('not strict-mode eligible'),
        }),
      );
      expect(response.providerMetadata).toBeUndefined();
    });
  });

  describe('structured output', () => {
    const schema = {
      type: 'object' as const,
      properties: { answer: { type: 'string' as const }, note: { type: 'string' as const } },
      required: ['answer'],
    };

    it('sends response_format json_schema in strict form and parses the answer, null read as absent', async () => {
      fake.push({ text: '{"answer":"Paris","note":null}' });
      const response = await openai()('gpt-5-mini').generate({
        messages: [{ role: 'user', content: 'x' }],
        responseFormat: { type: 'json', schema, name: 'capital', description: 'The capital' },
      });
      expect(fake.lastBody().response_format).toEqual({
        type: 'json_schema',
        json_schema: {
          name: 'capital',
          description: 'The capital',
          strict: true,
          schema: {
            type: 'object',
            properties: { answer: { type: 'string' }, note: { type: ['string', 'null'] } },
            required: ['answer', 'note'],
            additionalProperties: false,
          },
        },
      });
      expect(response.object).toEqual({ answer: 'Paris' });
    });

    it('repairs slightly broken JSON with a warning, and fails clearly on an answer that does not match', async () => {
      fake.push({ text: "{answer: 'Paris',}" }, { text: '{"note":"no answer"}' });
      const model = openai()('gpt-5-mini');
      const repaired = await model.generate({
        messages: [{ role: 'user', content: 'x' }],
        responseFormat: { type: 'json', schema },
      });
      expect(repaired.object).toEqual({ answer: 'Paris' });
      expect(repaired.warnings.map((warning) => warning.type)).toContain('arguments-repaired');
      const failure = await error(() =>
        model.generate({
          messages: [{ role: 'user', content: 'x' }],
          responseFormat: { type: 'json', schema },
        }),
      );
      expect(failure).toMatchObject({ name: 'InvalidToolArgumentsError', problem: 'invalid' });
      expect(String((failure as Error).message)).toContain('answer');
    });
  });

  describe('compatibility', () => {
    it('uses max_tokens and asks for stream usage on compatible servers, and can leave stream_options out', async () => {
      fake.push({ text: 'hi', usage: { inputTokens: 3, outputTokens: 1 } }, { text: 'hi' });
      const local = createOpenAI({ baseURL: `${fake.url}/v1`, maxRetries: 0 });
      expect(local.providerName).toBe('openai-compatible');
      const streamed = await collectStream(
        local('qwen3').stream({ messages: [{ role: 'user', content: 'x' }], maxOutputTokens: 10 }),
      );
      expect(fake.lastBody()).toMatchObject({
        max_tokens: 10,
        stream: true,
        stream_options: { include_usage: true },
      });
      expect(fake.lastBody().max_completion_tokens).toBeUndefined();
      expect(streamed.usage).toEqual({
        inputTokens: 3,
        outputTokens: 1,
        totalTokens: 4,
        cachedInputTokens: 0,
        reasoningTokens: 0,
      });

      const noUsage = createOpenAI({
        baseURL: `${fake.url}/v1`,
        streamUsage: false,
        maxRetries: 0,
      })('qwen3');
      expect(noUsage.capabilities.streamingUsage).toBe(false);
      await collectStream(noUsage.stream({ messages: [{ role: 'user', content: 'x' }] }));
      expect(fake.lastBody().stream_options).toBeUndefined();
    });

    it('sends no real key to a compatible server without one, and the key, organization and headers when given', async () => {
      fake.push({ text: 'a' }, { text: 'b' });
      await createOpenAI({ baseURL: `${fake.url}/v1`, maxRetries: 0 })('m').generate({
        messages: [{ role: 'user', content: 'x' }],
      });
      expect(fake.requests[0]!.headers.authorization).toBe('Bearer no-key');
      await openai({ organization: 'org-1', headers: { 'x-team': 'core' } })('m').generate({
        messages: [{ role: 'user', content: 'x' }],
        headers: { 'x-request': 'r1' },
      });
      expect(fake.requests[1]!.headers).toMatchObject({
        authorization: 'Bearer sk-test',
        'openai-organization': 'org-1',
        'x-team': 'core',
        'x-request': 'r1',
      });
    });

    it('requires a key for OpenAI and xAI, naming the environment variable', () => {
      const saved = { openai: process.env.OPENAI_API_KEY, xai: process.env.XAI_API_KEY };
      delete process.env.OPENAI_API_KEY;
      delete process.env.XAI_API_KEY;
      try {
        expect(() => createOpenAI()).toThrow(/OPENAI_API_KEY/);
        expect(() => createXai()).toThrow(/XAI_API_KEY/);
      } finally {
        if (saved.openai !== undefined) process.env.OPENAI_API_KEY = saved.openai;
        if (saved.xai !== undefined) process.env.XAI_API_KEY = saved.xai;
      }
    });

    it('rejects bad settings with a message naming them', () => {
      expect(() => openai({ compatibility: 'loose' as never })).toThrow(/compatibility/);
      expect(() => openai({ maxRetries: -1 })).toThrow(/maxRetries/);
      expect(() => openai()('')).toThrow(/modelId/);
      expect(() => openai()('m', { imageToolResults: 'drop' as never })).toThrow(
        /imageToolResults/,
      );
      expect(() => createXai({ apiKey: 'k' })('grok-4', { strictTools: true })).toThrow(
        /strictTools/,
      );
    });

    it('rejects tool names OpenAI-compatible APIs refuse before sending', async () => {
      const bad: ToolSpec = { ...weather, name: 'fs.read file' };
      await expect(
        openai()('m').generate({ messages: [{ role: 'user', content: 'x' }], tools: [bad] }),
      ).rejects.toThrow(/tools\[0\]\.name/);
      expect(fake.requests).toHaveLength(0);
    });
  });

  describe('streams', () => {
    it('fails a stream that goes silent with StreamProtocolError after the idle timeout', async () => {
      fake.push({ stallAfter: 2, turn: { text: 'This stalls after two chunks.' } });
      const model = openai({ idleTimeoutMs: 150 })('m');
      const failure = await error(() =>
        collectStream(model.stream({ messages: [{ role: 'user', content: 'x' }] })),
      );
      expect(failure).toMatchObject({
        name: 'StreamProtocolError',
        message: expect.stringContaining('idleTimeoutMs'),
      });
    });

    it('fails a stream whose server never answers with StreamProtocolError after the idle timeout', async () => {
      fake.push({ hang: true });
      const model = openai()('m', { idleTimeoutMs: 150 });
      expect(
        await error(() =>
          collectStream(model.stream({ messages: [{ role: 'user', content: 'x' }] })),
        ),
      ).toMatchObject({ name: 'StreamProtocolError' });
    });

    it('emits warnings first and the finish part last', async () => {
      fake.push({ text: 'hello' });
      const parts = [];
      for await (const part of openai()('m').stream({
        messages: [{ role: 'user', content: 'x' }],
        tools: [weather],
      }))
        parts.push(part.type);
      expect(parts[0]).toBe('warning');
      expect(parts.at(-1)).toBe('finish');
    });
  });

  describe('errors', () => {
    it('maps 403, 404 and other 400s, and a response_format rejection', async () => {
      fake.push(
        { error: { status: 403 } },
        {
          error: {
            status: 404,
            body: {
              error: {
                message: 'The model `gpt-9` does not exist',
                type: 'invalid_request_error',
                code: 'model_not_found',
              },
            },
          },
        },
        {
          error: {
            status: 400,
            body: {
              error: {
                message: 'Unrecognized request argument supplied: foo',
                type: 'invalid_request_error',
              },
            },
          },
        },
        {
          error: {
            status: 400,
            body: {
              error: {
                message:
                  "Invalid schema for response_format 'capital': 'minLength' is not permitted.",
                type: 'invalid_request_error',
                param: 'response_format',
              },
            },
          },
        },
      );
      const model = openai()('m');
      const request = { messages: [{ role: 'user' as const, content: 'x' }] };
      expect(await error(() => model.generate(request))).toMatchObject({
        name: 'ProviderError',
        code: 'permission_denied',
        statusCode: 403,
      });
      expect(await error(() => model.generate(request))).toMatchObject({
        code: 'not_found',
        message: expect.stringContaining('gpt-9'),
      });
      expect(await error(() => model.generate(request))).toMatchObject({
        name: 'InvalidRequestError',
        statusCode: 400,
      });
      const schema = await error(() => model.generate(request));
      expect(schema).toMatchObject({ name: 'SchemaRejectedError', toolName: undefined });
    });

    it('maps an unreachable server to ConnectionError', async () => {
      const closed = await startFakeProvider({ provider: 'openai' });
      const url = closed.url;
      await closed.close();
      const failure = await error(() =>
        createOpenAI({ baseURL: `${url}/v1`, maxRetries: 0 })('m').generate({
          messages: [{ role: 'user', content: 'x' }],
        }),
      );
      expect(failure).toMatchObject({
        name: 'ConnectionError',
        code: 'connection',
        retryable: true,
      });
    });

    it('lets the SDK retry when retries are turned on', async () => {
      fake.push(
        { error: { status: 500, headers: { 'retry-after-ms': '1' } } },
        { text: 'second time lucky' },
      );
      const response = await createOpenAI({
        baseURL: `${fake.url}/v1`,
        apiKey: 'k',
        provider: 'openai',
        maxRetries: 2,
      })('m').generate({ messages: [{ role: 'user', content: 'x' }] });
      expect(response.text).toBe('second time lucky');
      expect(fake.requests).toHaveLength(2);
    });

    it('does not retry by default, so the caller sees the typed error at once', async () => {
      fake.push({ error: { status: 500 } });
      const failure = await error(() =>
        createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'k', provider: 'openai' })('m').generate({
          messages: [{ role: 'user', content: 'x' }],
        }),
      );
      expect(failure).toMatchObject({ name: 'ServerError', retryable: true });
      expect(fake.requests).toHaveLength(1);
    });
  });
});

describe('createXai', () => {
  it('sends the xAI schema dialect with a warning per removed keyword, and max_tokens', async () => {
    fake.push({ text: 'ok' });
    const strictish: ToolSpec = {
      ...weather,
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string', minLength: 1, maxLength: 80 } },
        required: ['city'],
        additionalProperties: false,
      },
    };
    const model = createXai({ baseURL: `${fake.url}/v1`, apiKey: 'xai-key', maxRetries: 0 })(
      'grok-4',
    );
    expect(model.provider).toBe('xai');
    const response = await model.generate({
      messages: [{ role: 'user', content: 'x' }],
      tools: [strictish],
      maxOutputTokens: 64,
      providerOptions: { xai: { search_parameters: { mode: 'off' } } },
    });
    expect(fake.lastBody()).toMatchObject({
      model: 'grok-4',
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            parameters: {
              type: 'object',
              properties: { city: { type: 'string' } },
              required: ['city'],
            },
          },
        },
      ],
      max_tokens: 64,
      search_parameters: { mode: 'off' },
    });
    expect(response.warnings.map((warning) => warning.pointer).sort()).toEqual([
      '/additionalProperties',
      '/properties/city/maxLength',
      '/properties/city/minLength',
    ]);
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer xai-key');
  });

  it('reads reasoning_content and xAI usage from a recorded answer', async () => {
    fake.push({ raw: wireFixture('xai-chat-tools.json') });
    const response = await createXai({ baseURL: `${fake.url}/v1`, apiKey: 'k', maxRetries: 0 })(
      'grok-3-mini',
    ).generate({ messages: [{ role: 'user', content: 'x' }] });
    expect(response.reasoning?.[0]?.text).toMatch(/^First, the user is asking about the weather/);
    expect(response.modelId).toBe('grok-3-mini');
    expect(response.responseId).toBe('61c0468b-2a98-413e-f654-dbffcdbb62c1');
  });
});

describe('OpenAIChatModel', () => {
  const refusalAnswer = JSON.stringify({
    id: 'chatcmpl-r',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-5-mini',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, refusal: "I can't help with that." },
        finish_reason: 'stop',
      },
    ],
  });

  it('returns a refusal as the answer text, and fails structured output with a refusal error', async () => {
    fake.push(
      { raw: { contentType: 'application/json', body: refusalAnswer } },
      { raw: { contentType: 'application/json', body: refusalAnswer } },
    );
    const model = openai()('gpt-5-mini');
    const plain = await model.generate({ messages: [{ role: 'user', content: 'x' }] });
    expect(plain.text).toBe("I can't help with that.");
    expect(plain.providerMetadata).toEqual({ openai: { refusal: "I can't help with that." } });
    const structured = await error(() =>
      model.generate({
        messages: [{ role: 'user', content: 'x' }],
        responseFormat: { type: 'json', schema: { type: 'object', properties: {} } },
      }),
    );
    expect(structured).toMatchObject({
      name: 'ProviderError',
      code: 'refusal',
      message: expect.stringContaining("I can't help with that."),
    });
  });

  it('reports a tool call that came without a function name instead of dropping it silently', async () => {
    const body = JSON.stringify({
      id: 'x',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_x', type: 'function', function: { arguments: '{"a":1}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });
    fake.push({ raw: { contentType: 'application/json', body } });
    const response = await openai()('m').generate({ messages: [{ role: 'user', content: 'x' }] });
    expect(response.toolCalls).toEqual([]);
    expect(response.warnings).toContainEqual(
      expect.objectContaining({ type: 'other', message: expect.stringContaining('call_x') }),
    );
  });

  it('rejects a message with an unknown role, naming its index', async () => {
    await expect(
      openai()('m').generate({
        messages: [{ role: 'user', content: 'x' }, { role: 'bot', content: 'y' } as never],
      }),
    ).rejects.toThrow(/messages\[1\]\.role/);
    expect(fake.requests).toHaveLength(0);
  });

  it('builds the request body without sending it', () => {
    const built = openai()('gpt-5-mini').buildRequest(
      { messages: [{ role: 'user', content: 'x' }] },
      { stream: true },
    );
    expect(built.body).toEqual({
      model: 'gpt-5-mini',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
      stream_options: { include_usage: true },
    });
  });
});

describe('OpenAIChatModel stream idle timeout', () => {
  it('does not count the time a slow consumer holds a part', async () => {
    fake.push({ text: 'one two three', chunking: { textChunkSize: 4 } });
    const model = openai({ idleTimeoutMs: 100 })('m');
    const deltas: string[] = [];
    for await (const part of model.stream({ messages: [{ role: 'user', content: 'x' }] })) {
      if (part.type === 'text-delta') {
        deltas.push(part.delta);
        // The slow consumer is what is under test, not a wait: it holds each part past the idle
        // timeout.
        // eslint-disable-next-line no-restricted-syntax
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    }
    expect(deltas.join('')).toBe('one two three');
  });

  it('aborts the HTTP request when the consumer stops reading', async () => {
    fake.push({ stallAfter: 6, turn: { text: 'a long answer that stalls part way through' } });
    const signals: AbortSignal[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      if (init?.signal) signals.push(init.signal);
      return fetch(input, init);
    };
    for await (const part of openai({ fetch: recordingFetch })('m').stream({
      messages: [{ role: 'user', content: 'x' }],
    })) {
      if (part.type === 'text-delta') break;
    }
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);
  });

  it('fails with CancelledError when the caller aborts mid-stream', async () => {
    fake.push({ stallAfter: 6, turn: { text: 'a long answer that stalls part way through' } });
    const controller = new AbortController();
    const run = async () => {
      for await (const part of openai()('m').stream({
        messages: [{ role: 'user', content: 'x' }],
        signal: controller.signal,
      })) {
        if (part.type === 'text-delta') controller.abort();
      }
    };
    await expect(run()).rejects.toMatchObject({ name: 'CancelledError' });
  });

  it('reads answers whose content is an array of parts', async () => {
    const body = JSON.stringify({
      id: 'x',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Hello ' },
              { type: 'text', text: 'there' },
            ],
          },
          finish_reason: 'stop',
        },
      ],
    });
    fake.push({ raw: { contentType: 'application/json', body } });
    expect(
      (await openai()('m').generate({ messages: [{ role: 'user', content: 'x' }] })).text,
    ).toBe('Hello there');
  });
});

describe('OpenAIChatModel stream warnings', () => {
  it('emits warnings found while reading the answer as parts before finish', async () => {
    fake.push({ text: "{answer: 'Paris'}" });
    const parts = [];
    const schema = {
      type: 'object' as const,
      properties: { answer: { type: 'string' as const } },
      required: ['answer'],
    };
    for await (const part of openai()('m').stream({
      messages: [{ role: 'user', content: 'x' }],
      responseFormat: { type: 'json', schema },
    }))
      parts.push(part);
    const finish = parts.at(-1)!;
    expect(finish.type).toBe('finish');
    expect(parts.at(-2)).toMatchObject({
      type: 'warning',
      warning: { type: 'arguments-repaired' },
    });
    if (finish.type === 'finish') expect(finish.response.object).toEqual({ answer: 'Paris' });
  });
});

describe('OpenAIChatModel capabilities', () => {
  it('takes overrides, and refuses tools for a model declared without tool calling', async () => {
    const model = createOpenAI({ baseURL: `${fake.url}/v1` })('tiny-local', {
      capabilities: { toolCalling: false, imagesInUserMessages: false },
    });
    expect(model.capabilities).toMatchObject({
      toolCalling: false,
      imagesInUserMessages: false,
      structuredOutput: 'json-schema',
    });
    await expect(
      model.generate({ messages: [{ role: 'user', content: 'x' }], tools: [weather] }),
    ).rejects.toMatchObject({ name: 'UnsupportedFeatureError', feature: 'toolCalling' });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('createOpenAI with a model that cannot take tools', () => {
  const refusals: Array<[string, unknown]> = [
    [
      "Ollama's /v1",
      {
        error: {
          message: 'registry.ollama.ai/library/gemma:2b does not support tools',
          type: 'api_error',
          param: null,
          code: null,
        },
      },
    ],
    [
      'vLLM without a tool parser',
      {
        object: 'error',
        message:
          '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    ],
    [
      'llama.cpp without --jinja',
      {
        error: {
          code: 400,
          message: 'tools param requires --jinja flag',
          type: 'invalid_request_error',
        },
      },
    ],
  ];
  for (const [server, body] of refusals) {
    it(`raises UnsupportedFeatureError naming the model (${server})`, async () => {
      fake.push({ error: { status: 400, body } }, { error: { status: 400, body } });
      const model = openai({ provider: 'openai-compatible' })('gemma:2b');
      for (const run of [
        () => model.generate({ messages: [{ role: 'user', content: 'hi' }], tools: [weather] }),
        () =>
          collectStream(
            model.stream({ messages: [{ role: 'user', content: 'hi' }], tools: [weather] }),
          ),
      ]) {
        expect(await error(run)).toMatchObject({
          name: 'UnsupportedFeatureError',
          feature: 'toolCalling',
          modelId: 'gemma:2b',
          message: expect.stringContaining('model "gemma:2b" does not support tool calling'),
        });
      }
    });
  }
});
