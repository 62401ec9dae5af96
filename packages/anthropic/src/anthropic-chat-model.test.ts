import type { ProviderError } from '@toolwire/schema';
import {
  AuthenticationError,
  CancelledError,
  ConnectionError,
  ContextOverflowError,
  InvalidToolChoiceError,
  RateLimitError,
  SchemaRejectedError,
  ServerError,
  StreamProtocolError,
  collectStream,
  errorResult,
  textResult,
  type ChatRequest,
  type ChatStreamPart,
  type JsonSchema,
  type Message,
  type ToolSpec,
} from '@toolwire/schema';
import {
  startFakeProvider,
  wireFixture,
  wireFixtureJson,
  type FakeProvider,
} from '@toolwire/testing/providers';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAnthropic } from './anthropic-provider.js';
import type { AnthropicModelSettings } from './anthropic-chat-model.js';

const weather: ToolSpec = {
  name: 'get_weather',
  description: 'Get the current weather in a given location',
  inputSchema: {
    type: 'object',
    properties: {
      location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
    },
    required: ['location'],
  },
};
const time: ToolSpec = {
  name: 'get_time',
  description: 'Get the current local time in a given location',
  inputSchema: {
    type: 'object',
    properties: { location: { type: 'string' } },
    required: ['location'],
  },
};
const ask: Message[] = [{ role: 'user', content: 'What is the weather in Paris?' }];

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ provider: 'anthropic' });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

async function arrived(count: number): Promise<void> {
  await vi.waitFor(() => expect(fake.requests.length).toBeGreaterThanOrEqual(count));
}

function model(settings?: AnthropicModelSettings) {
  return createAnthropic({ apiKey: 'sk-test', baseURL: fake.url })('claude-test-model', settings);
}

async function partsOf(
  request: ChatRequest,
  settings?: AnthropicModelSettings,
): Promise<ChatStreamPart[]> {
  const parts: ChatStreamPart[] = [];
  for await (const part of model(settings).stream(request)) parts.push(part);
  return parts;
}

describe('AnthropicChatModel request building', () => {
  it('sends tools as input_schema, the system prompt in system, max_tokens and the api key', async () => {
    fake.push({ text: 'Hi' });
    await model().generate({
      messages: [{ role: 'system', content: 'Be brief.' }, ...ask],
      tools: [weather],
      temperature: 0.2,
      stopSequences: ['END'],
    });
    const request = fake.requests[0]!;
    expect(request.path).toBe('/v1/messages');
    expect(request.headers.authorization ?? request.headers['x-api-key']).toMatch(/sk-test/);
    expect(request.body).toEqual({
      model: 'claude-test-model',
      max_tokens: 4096,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
      tools: [
        {
          name: 'get_weather',
          description: weather.description,
          input_schema: weather.inputSchema,
        },
      ],
      temperature: 0.2,
      stop_sequences: ['END'],
    });
  });

  it.each([
    ['auto', { type: 'auto' }],
    ['none', { type: 'none' }],
    ['required', { type: 'any' }],
    [
      { type: 'tool', toolName: 'get_time' },
      { type: 'tool', name: 'get_time' },
    ],
  ] as const)('maps toolChoice %j to %j and keeps the tools', async (choice, wire) => {
    fake.push({ text: 'ok' });
    await model().generate({ messages: ask, tools: [weather, time], toolChoice: choice });
    expect(fake.lastBody().tool_choice).toEqual(wire);
    expect((fake.lastBody().tools as unknown[]).length).toBe(2);
  });

  it('sends disable_parallel_tool_use when parallel calls are off', async () => {
    fake.push({ text: 'ok' }, { text: 'ok' });
    await model().generate({ messages: ask, tools: [weather], parallelToolCalls: false });
    expect(fake.lastBody().tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    await model().generate({
      messages: ask,
      tools: [weather],
      toolChoice: 'required',
      parallelToolCalls: false,
    });
    expect(fake.lastBody().tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
  });

  it('rejects a tool choice that names an unknown tool before sending', async () => {
    await expect(
      model().generate({
        messages: ask,
        tools: [weather],
        toolChoice: { type: 'tool', toolName: 'nope' },
      }),
    ).rejects.toBeInstanceOf(InvalidToolChoiceError);
    expect(fake.requests).toHaveLength(0);
  });

  it('sends the follow-up turn exactly as the recorded request: one user message starting with every tool_result', async () => {
    const expected = wireFixtureJson('anthropic-messages-tools-followup-request.json') as Record<
      string,
      unknown
    >;
    fake.push({ text: 'Rainy, 15°C.' });
    await createAnthropic({ apiKey: 'k', baseURL: fake.url })('claude-sonnet-4-20250514', {
      maxOutputTokens: 1024,
    }).generate({
      tools: [weather, time],
      messages: [
        { role: 'user', content: "What's the weather and the local time in Paris?" },
        {
          role: 'assistant',
          content: "I'll check the current weather and time in Paris for you.",
          toolCalls: [
            {
              id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn',
              name: 'get_weather',
              arguments: { location: 'Paris' },
            },
            {
              id: 'toolu_01A09q90qw90lq917835lq9',
              name: 'get_time',
              arguments: '{"location":"Paris"}',
            },
          ],
        },
        {
          role: 'tool',
          // Out of call order on purpose: the adapter sends them in call order.
          results: [
            {
              ...errorResult('toolu_01A09q90qw90lq917835lq9', 'get_time', {
                category: 'networkError',
                message: 'x',
              }),
              content: [{ type: 'text', text: 'Error: time service unavailable' }],
            },
            textResult('toolu_01NRLabsLyVHZPKxbKvkfSMn', 'get_weather', '15 degrees, light rain'),
          ],
        },
        { role: 'user', content: 'Please keep the answer short.' },
      ],
    });
    expect(fake.lastBody()).toEqual(expected);
  });

  it('puts images from tool results inside the tool_result block and falls back to text for unsupported types', async () => {
    fake.push({ text: 'A cat.' });
    const response = await model().generate({
      tools: [weather],
      messages: [
        ...ask,
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { location: 'Paris' } }],
        },
        {
          role: 'tool',
          results: [
            {
              toolCallId: 'toolu_1',
              toolName: 'get_weather',
              isError: false,
              content: [
                { type: 'text', text: 'radar:' },
                { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
                { type: 'image', data: 'AAAA', mediaType: 'image/tiff' },
              ],
            },
          ],
        },
      ],
    });
    const messages = fake.lastBody().messages as Array<{ content: unknown }>;
    expect(messages[2]!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [
          { type: 'text', text: 'radar:' },
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
          },
          { type: 'text', text: '[image: image/tiff, not shown: unsupported image type]' },
        ],
      },
    ]);
    expect(response.warnings.map((w) => w.type)).toEqual(['image-as-text']);
  });

  it('repairs a transcript with a missing tool result and reports it', async () => {
    fake.push({ text: 'ok' });
    const response = await model().generate({
      tools: [weather],
      messages: [
        ...ask,
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: {} }],
        },
        { role: 'user', content: 'never mind' },
      ],
    });
    const messages = fake.lastBody().messages as Array<{
      role: string;
      content: Array<Record<string, unknown>>;
    }>;
    expect(messages[2]!.content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      is_error: true,
    });
    expect(messages[2]!.content[1]).toEqual({ type: 'text', text: 'never mind' });
    expect(response.warnings[0]).toMatchObject({ type: 'transcript-repaired' });
  });

  it('passes providerOptions.anthropic through as body fields', async () => {
    fake.push({ text: 'ok' });
    await model().generate({
      messages: ask,
      providerOptions: { anthropic: { top_k: 5, metadata: { user_id: 'u1' } } },
    });
    expect(fake.lastBody()).toMatchObject({ top_k: 5, metadata: { user_id: 'u1' } });
  });
});

describe('AnthropicChatModel responses', () => {
  it('parses the recorded no-argument tool_use response with its text and usage', async () => {
    fake.push({ raw: wireFixture('anthropic-messages-tools.json') });
    const response = await model().generate({ messages: ask, tools: [weather] });
    expect(response.toolCalls).toEqual([
      { id: 'toolu_01LRmxn9vGM1d2DZSDBowdZ1', name: 'updateIssueList', arguments: {} },
    ]);
    expect(response.text).toMatch(/^<thinking>[\s\S]*Okay, I will update the current issue list:$/);
    expect(response.finishReason).toBe('tool-calls');
    expect(response.rawFinishReason).toBe('tool_use');
    expect(response.usage).toEqual({
      inputTokens: 602,
      outputTokens: 93,
      totalTokens: 695,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
    });
    expect(response.modelId).toBe('claude-3-opus-20240229');
    expect(response.responseId).toBe('msg_01GCBaV8gyWAYgMVggRqZbuQ');
  });

  it('tolerates the docs example, which has no type and no usage', async () => {
    fake.push({ raw: wireFixture('anthropic-messages-tools-docs.json') });
    const response = await model().generate({ messages: ask, tools: [weather] });
    expect(response.toolCalls).toEqual([
      {
        id: 'toolu_01A09q90qw90lq917835lq9',
        name: 'get_weather',
        arguments: { location: 'San Francisco, CA', unit: 'celsius' },
      },
    ]);
    expect(response.usage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });

  it('streams the recorded transcript into typed parts and the final call', async () => {
    fake.push({ raw: wireFixture('anthropic-messages-tools-stream.sse') });
    const parts = await partsOf({ messages: ask, tools: [weather] });
    expect(fake.lastBody().stream).toBe(true);
    expect(parts.filter((p) => p.type === 'text-delta').map((p) => p.delta)).toEqual([
      'I',
      "'ll check the current weather in Paris for you.",
    ]);
    expect(parts.filter((p) => p.type === 'tool-call-start')).toEqual([
      {
        type: 'tool-call-start',
        id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn',
        name: 'get_weather',
        index: 0,
      },
    ]);
    expect(
      parts
        .filter((p) => p.type === 'tool-call-delta')
        .map((p) => p.argumentsDelta)
        .join(''),
    ).toBe('{"location": "Paris"}');
    expect(parts.filter((p) => p.type === 'tool-call')).toEqual([
      {
        type: 'tool-call',
        toolCall: {
          id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn',
          name: 'get_weather',
          arguments: { location: 'Paris' },
        },
      },
    ]);
    const finish = parts.at(-1)!;
    expect(finish.type).toBe('finish');
    if (finish.type !== 'finish') return;
    expect(finish.response).toMatchObject({
      text: "I'll check the current weather in Paris for you.",
      finishReason: 'tool-calls',
      usage: { inputTokens: 377, outputTokens: 65, totalTokens: 442 },
      responseId: 'msg_019Q1hrJbZG26Fb9BQhrkHEr',
    });
  });

  it('gives {} for a streamed no-argument tool whose only fragment is empty', async () => {
    fake.push({ raw: wireFixture('anthropic-messages-tools-noargs-stream.sse') });
    const response = await collectStream(model().stream({ messages: ask }));
    expect(response.toolCalls).toEqual([
      { id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP', name: 'updateIssueList', arguments: {} },
    ]);
    expect(response.text).toBe("I'll update the issue list for you.");
    expect(response.usage.outputTokens).toBe(48);
  });

  it('returns the same response streaming and not streaming (thinking, text, two calls, cache usage)', async () => {
    const turn = {
      reasoning: 'The user wants weather and time.',
      text: 'Checking both.',
      toolCalls: [
        { id: 'toolu_a', name: 'get_weather', arguments: { location: 'Paris' } },
        { id: 'toolu_b', name: 'get_time', arguments: { location: 'Paris, France' } },
      ],
      usage: { inputTokens: 120, outputTokens: 40, cachedInputTokens: 100 },
    };
    fake.push(turn, turn);
    const request = { messages: ask, tools: [weather, time] };
    const generated = await model().generate(request);
    const streamed = await collectStream(model().stream(request));
    expect({ ...streamed, responseId: 'same' }).toEqual({ ...generated, responseId: 'same' });
    expect(generated.reasoning).toEqual([
      { type: 'reasoning', text: 'The user wants weather and time.', signature: 'fake-signature' },
    ]);
    expect(generated.usage).toEqual({
      inputTokens: 120,
      outputTokens: 40,
      totalTokens: 160,
      cachedInputTokens: 100,
      cacheWriteInputTokens: 0,
    });
    expect(generated.toolCalls.map((c) => c.arguments)).toEqual([
      { location: 'Paris' },
      { location: 'Paris, France' },
    ]);
  });

  it('keeps malformed streamed arguments as text instead of running the tool with {}', async () => {
    fake.push({
      toolCalls: [{ id: 'toolu_x', name: 'get_weather', arguments: '{"location": "Par' }],
      finishReason: 'length',
    });
    const response = await collectStream(model().stream({ messages: ask, tools: [weather] }));
    expect(response.toolCalls).toEqual([
      { id: 'toolu_x', name: 'get_weather', arguments: '{"location": "Par' },
    ]);
    expect(response.finishReason).toBe('length');
  });
});

describe('AnthropicChatModel thinking', () => {
  const thinking = { type: 'enabled' as const, budgetTokens: 8000 };

  it('sends thinking, raises max_tokens above the budget and resends signed thinking verbatim', async () => {
    fake.push({ text: 'Done.' });
    await model({ thinking }).generate({
      tools: [weather],
      messages: [
        ...ask,
        {
          role: 'assistant',
          content: '',
          reasoning: [
            { type: 'reasoning', text: 'Need the weather.', signature: 'sig-1' },
            { type: 'reasoning', text: '', redactedData: 'opaque' },
            { type: 'reasoning', text: 'from another provider' },
          ],
          toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { location: 'Paris' } }],
        },
        { role: 'tool', results: [textResult('toolu_1', 'get_weather', 'sunny')] },
      ],
    });
    const body = fake.lastBody();
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 8000 });
    expect(body.max_tokens).toBe(8000 + 4096);
    expect((body.messages as Array<{ content: unknown }>)[1]!.content).toEqual([
      { type: 'thinking', thinking: 'Need the weather.', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { location: 'Paris' } },
    ]);
  });

  it('downgrades a forced tool choice to auto with a warning, and reports when the model ignored it', async () => {
    fake.push({ text: 'No tool needed.' });
    const response = await model({ thinking }).generate({
      messages: ask,
      tools: [weather],
      toolChoice: 'required',
    });
    expect(fake.lastBody().tool_choice).toEqual({ type: 'auto' });
    expect(response.warnings.map((w) => w.type)).toEqual([
      'tool-choice-downgraded',
      'tool-choice-ignored',
    ]);
  });

  it('rejects an explicit maxOutputTokens at or below the thinking budget with a clear error', async () => {
    await expect(
      model({ thinking }).generate({ messages: ask, maxOutputTokens: 1000 }),
    ).rejects.toThrow(/maxOutputTokens \(1000\) must be greater than the thinking budget \(8000\)/);
  });
});

describe('AnthropicChatModel thinking with structured output', () => {
  it('offers the response tool unforced while thinking is on, and accepts the JSON as text', async () => {
    fake.push({ reasoning: 'Paris, 15.', text: '{"city":"Paris","celsius":15}' });
    const response = await model({ thinking: { type: 'adaptive' } }).generate({
      messages: ask,
      responseFormat: {
        type: 'json',
        schema: {
          type: 'object',
          properties: { city: { type: 'string' }, celsius: { type: 'number' } },
          required: ['city', 'celsius'],
        },
      },
    });
    expect(fake.lastBody().thinking).toEqual({ type: 'adaptive' });
    expect(fake.lastBody().tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(response.object).toEqual({ city: 'Paris', celsius: 15 });
    expect(response.warnings.map((w) => w.type)).toEqual(['tool-choice-downgraded']);
  });
});

describe('AnthropicChatModel long requests', () => {
  it('streams (and collects) a generate call whose max_tokens the SDK would refuse without streaming', async () => {
    fake.push({ text: 'A long essay.', usage: { inputTokens: 5, outputTokens: 7 } });
    const response = await model({ maxOutputTokens: 32_000 }).generate({ messages: ask });
    expect(fake.lastBody()).toMatchObject({ max_tokens: 32_000, stream: true });
    expect(response).toMatchObject({
      text: 'A long essay.',
      finishReason: 'stop',
      usage: { inputTokens: 5, outputTokens: 7 },
    });
  });
});

describe('AnthropicChatModel headers', () => {
  it('sends provider headers on every request and request headers on one', async () => {
    fake.push({ text: 'a' });
    await createAnthropic({ apiKey: 'k', baseURL: fake.url, headers: { 'x-team': 'core' } })(
      'claude-test-model',
    ).generate({
      messages: ask,
      headers: { 'x-trace': 't1' },
    });
    expect(fake.requests[0]!.headers['x-team']).toBe('core');
    expect(fake.requests[0]!.headers['x-trace']).toBe('t1');
  });
});

describe('AnthropicChatModel structured output', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: { city: { type: 'string' }, celsius: { type: 'number' } },
    required: ['city', 'celsius'],
  };

  it('forces a response tool and reads the JSON from its input, streaming or not', async () => {
    const turn = {
      toolCalls: [
        { id: 'toolu_r', name: 'json_response', arguments: { city: 'Paris', celsius: 15 } },
      ],
    };
    fake.push(turn, turn);
    const request: ChatRequest = { messages: ask, responseFormat: { type: 'json', schema } };
    const response = await model().generate(request);
    expect(fake.lastBody().tool_choice).toEqual({
      type: 'tool',
      name: 'json_response',
      disable_parallel_tool_use: true,
    });
    expect(fake.lastBody().tools).toEqual([
      {
        name: 'json_response',
        description: 'Respond with the final answer as this tool input.',
        input_schema: schema,
      },
    ]);
    expect(response.object).toEqual({ city: 'Paris', celsius: 15 });
    expect(response.toolCalls).toEqual([]);
    expect(response.finishReason).toBe('stop');
    const parts = await partsOf(request);
    expect(parts.some((p) => p.type === 'tool-call' || p.type === 'tool-call-start')).toBe(false);
    expect({ ...(parts.at(-1) as { response: object }).response, responseId: 'same' }).toEqual({
      ...response,
      responseId: 'same',
    });
  });

  it('repairs the JSON and fails with a validation error naming the path when it does not fit', async () => {
    fake.push(
      { toolCalls: [{ name: 'json_response', arguments: "{'city': 'Paris', 'celsius': 15}" }] },
      { toolCalls: [{ name: 'json_response', arguments: { city: 'Paris', celsius: 'warm' } }] },
    );
    const repaired = await model().generate({
      messages: ask,
      responseFormat: { type: 'json', schema },
    });
    expect(repaired.object).toEqual({ city: 'Paris', celsius: 15 });
    expect(repaired.warnings.map((w) => w.type)).toContain('arguments-repaired');
    await expect(
      model().generate({ messages: ask, responseFormat: { type: 'json', schema } }),
    ).rejects.toThrow(/celsius/);
  });
});

describe('AnthropicChatModel errors', () => {
  const request = { messages: ask, tools: [weather, time] };

  it('maps 401 to AuthenticationError', async () => {
    fake.push({ error: { status: 401 } });
    await expect(model().generate(request)).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('maps 429 to RateLimitError with retry-after', async () => {
    fake.push({ error: { status: 429, headers: { 'retry-after': '2' } } });
    const error = await model()
      .generate(request)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(2000);
    expect((error as RateLimitError).retryable).toBe(true);
  });

  it('maps a too-long prompt to ContextOverflowError', async () => {
    fake.push({
      error: {
        status: 400,
        body: {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: 'prompt is too long: 210000 tokens > 200000 maximum',
          },
        },
      },
    });
    await expect(model().generate(request)).rejects.toBeInstanceOf(ContextOverflowError);
  });

  it('maps a rejected tool schema to SchemaRejectedError naming the tool', async () => {
    fake.push({
      error: {
        status: 400,
        body: {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: 'tools.1.custom.input_schema: JSON schema is invalid',
          },
        },
      },
    });
    const error = await model()
      .generate(request)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaRejectedError);
    expect((error as SchemaRejectedError).toolName).toBe('get_time');
  });

  it('maps 500 to ServerError and 529 to ServerError "overloaded"', async () => {
    fake.push({ error: { status: 500 } }, { error: { status: 529 } });
    const first = await model()
      .generate(request)
      .catch((e: unknown) => e);
    expect(first).toBeInstanceOf(ServerError);
    expect((first as ServerError).code).toBe('server_error');
    const second = await model()
      .generate(request)
      .catch((e: unknown) => e);
    expect((second as ServerError).code).toBe('overloaded');
    expect((second as ServerError).statusCode).toBe(529);
  });

  it('maps a streamed error event (overloaded_error) to ServerError "overloaded"', async () => {
    fake.push({
      raw: {
        contentType: 'text/event-stream',
        body:
          'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"m","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}\n\n' +
          'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      },
    });
    const error = await collectStream(model().stream(request)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ProviderError).code).toBe('overloaded');
  });

  it('maps 403, 404, 413 and other 400s', async () => {
    fake.push(
      { error: { status: 403 } },
      { error: { status: 404 } },
      { error: { status: 413 } },
      {
        error: {
          status: 400,
          body: {
            type: 'error',
            error: { type: 'invalid_request_error', message: 'messages: roles must alternate' },
          },
        },
      },
    );
    const errors: unknown[] = [];
    for (let i = 0; i < 4; i++)
      errors.push(
        await model()
          .generate(request)
          .catch((e: unknown) => e),
      );
    expect(errors[0]).toMatchObject({
      name: 'ProviderError',
      code: 'permission_denied',
      statusCode: 403,
    });
    expect(errors[1]).toMatchObject({ name: 'ProviderError', code: 'not_found', statusCode: 404 });
    expect(errors[2]).toBeInstanceOf(ContextOverflowError);
    expect(errors[3]).toMatchObject({ name: 'InvalidRequestError', code: 'invalid_request' });
    expect((errors[3] as Error).message).toMatch(/roles must alternate/);
  });

  it('maps an unreachable server to ConnectionError', async () => {
    const closed = await startFakeProvider({ provider: 'anthropic' });
    const url = closed.url;
    await closed.close();
    const error = await createAnthropic({ apiKey: 'k', baseURL: url })('claude-test-model')
      .generate(request)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
  });

  it('fails with AuthenticationError when no API key is configured anywhere', async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      await expect(
        createAnthropic({ baseURL: fake.url })('claude-test-model').generate(request),
      ).rejects.toBeInstanceOf(AuthenticationError);
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
  });
});

describe('AnthropicChatModel cancellation and dropped streams', () => {
  it('aborts a hanging request with CancelledError (generate and stream)', async () => {
    fake.push({ hang: true }, { hang: true });
    const controller = new AbortController();
    const pending = model().generate({ messages: ask, signal: controller.signal });
    // Abort once the server has the request, so it cannot arrive late and eat the next test's turn.
    await arrived(1);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(CancelledError);
    const streamController = new AbortController();
    const streaming = collectStream(
      model().stream({ messages: ask, signal: streamController.signal }),
    );
    await arrived(2);
    streamController.abort();
    await expect(streaming).rejects.toBeInstanceOf(CancelledError);
  });

  it('aborts mid-stream with CancelledError', async () => {
    fake.push({ stallAfter: 5 });
    const controller = new AbortController();
    const parts: ChatStreamPart[] = [];
    const error = await (async () => {
      for await (const part of model().stream({ messages: ask, signal: controller.signal })) {
        parts.push(part);
        if (part.type === 'text-delta') controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CancelledError);
    expect(parts.some((p) => p.type === 'text-delta')).toBe(true);
  });

  it('fails a dropped stream with StreamProtocolError', async () => {
    fake.push({ dropAfter: 4 });
    await expect(collectStream(model().stream({ messages: ask }))).rejects.toBeInstanceOf(
      StreamProtocolError,
    );
  });

  it('fails a stalled stream with StreamProtocolError after the idle timeout (provider default, model override)', async () => {
    fake.push({ stallAfter: 4 }, { stallAfter: 4 });
    const first = await collectStream(
      createAnthropic({ apiKey: 'k', baseURL: fake.url, idleTimeoutMs: 150 })(
        'claude-test-model',
      ).stream({ messages: ask }),
    ).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(StreamProtocolError);
    expect((first as Error).message).toMatch(/150 ms/);
    const second = await collectStream(
      createAnthropic({ apiKey: 'k', baseURL: fake.url, idleTimeoutMs: 60_000 })(
        'claude-test-model',
        { idleTimeoutMs: 120 },
      ).stream({ messages: ask }),
    ).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(StreamProtocolError);
    expect((second as Error).message).toMatch(/120 ms/);
  });
});

describe('AnthropicChatModel early exit', () => {
  it('aborts the HTTP request when the consumer stops reading', async () => {
    fake.push({ stallAfter: 6 });
    const signals: AbortSignal[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      if (init?.signal) signals.push(init.signal);
      return fetch(input, init);
    };
    const streaming = createAnthropic({ apiKey: 'k', baseURL: fake.url, fetch: recordingFetch })(
      'claude-test-model',
    );
    for await (const part of streaming.stream({ messages: ask })) {
      if (part.type === 'text-delta') break;
    }
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);
  });
});
