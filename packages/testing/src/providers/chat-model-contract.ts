import {
  errorResult,
  parseToolArguments,
  ProviderError,
  textResult,
  toolCallArgumentsObject,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ChatStreamPart,
  type JsonSchema,
  type Message,
  type ToolChoice,
  type ToolResult,
  type ToolSpec,
} from '@toolwire/schema';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { WIRE_EXPECTATIONS } from './contract-wire-expectations.js';
import { startFakeProvider, type FakeProvider } from './fake-provider.js';
import type { FakeAnswer, FakeChunking, FakeProviderKind } from './fake-turn.js';
import { wireFixture } from './wire-fixtures.js';

export interface ChatModelContractOptions {
  /** Shown in the describe block, e.g. '@toolwire/openai'. */
  name: string;
  provider: FakeProviderKind;
  /**
   * Makes the model under test, pointed at the fake server. `baseUrl` is the server's origin
   * (`http://127.0.0.1:<port>`): OpenAI wants `baseUrl + '/v1'`, Anthropic and Ollama `baseUrl`.
   * The model must not retry on its own (SDK retries off, e.g. `maxRetries: 0`): the contract counts
   * requests, and a retried 429 would wait for its retry-after.
   */
  createModel: (baseUrl: string) => ChatModel;
}

export const CONTRACT_TOOLS = {
  weather: {
    name: 'get_weather',
    description: 'Current weather for a city',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
  time: {
    name: 'get_time',
    description: 'Current time in an IANA time zone',
    inputSchema: {
      type: 'object',
      properties: { timezone: { type: 'string' } },
      required: ['timezone'],
    },
  },
} satisfies Record<string, ToolSpec>;

const TOOLS: ToolSpec[] = [CONTRACT_TOOLS.weather, CONTRACT_TOOLS.time];
const USER: Message = {
  role: 'user',
  content: 'What is the weather in Paris and the time in Tokyo?',
};
const USAGE = { inputTokens: 120, outputTokens: 30, cachedInputTokens: 100, reasoningTokens: 8 };

/** A response reduced to what must be the same however it was obtained (JSON or stream). */
export function comparableResponse(response: ChatResponse): Record<string, unknown> {
  return {
    text: response.text,
    toolCalls: response.toolCalls.map((call) => ({
      id: call.id,
      name: call.name,
      arguments: toolCallArgumentsObject(call) ?? call.arguments,
    })),
    finishReason: response.finishReason,
    usage: response.usage,
    reasoning: (response.reasoning ?? []).map((part) => part.text).join(''),
    object: response.object,
    modelId: response.modelId,
  };
}

/** Streams a request, checks the part sequence is well formed, and returns the parts and response. */
export async function collectCheckedStream(
  model: ChatModel,
  request: ChatRequest,
): Promise<{ parts: ChatStreamPart[]; response: ChatResponse }> {
  const parts: ChatStreamPart[] = [];
  for await (const part of model.stream(request)) parts.push(part);
  const finishes = parts.filter((part) => part.type === 'finish');
  expect(finishes, 'exactly one finish part').toHaveLength(1);
  expect(parts.at(-1)!.type, 'finish is the last part').toBe('finish');
  const response = (finishes[0] as Extract<ChatStreamPart, { type: 'finish' }>).response;
  const text = parts.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : [])).join('');
  expect(text, 'text deltas add up to the text').toBe(response.text);
  const calls = parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCall] : []));
  expect(calls, 'tool-call parts are the tool calls').toEqual(response.toolCalls);
  for (const call of calls) {
    const start = parts.findIndex((part) => part.type === 'tool-call-start' && part.id === call.id);
    const end = parts.findIndex(
      (part) => part.type === 'tool-call' && part.toolCall.id === call.id,
    );
    expect(
      start,
      `tool-call-start for ${call.id} comes before its tool-call`,
    ).toBeGreaterThanOrEqual(0);
    expect(start).toBeLessThan(end);
  }
  return { parts, response };
}

async function captureError(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

async function drain(stream: AsyncIterable<ChatStreamPart>): Promise<void> {
  for await (const _part of stream) {
    // consume
  }
}

function toolTurnMessages(response: ChatResponse, results: ToolResult[]): Message[] {
  return [
    USER,
    { role: 'assistant', content: response.text, toolCalls: response.toolCalls },
    { role: 'tool', results },
  ];
}

/**
 * The chat-model contract: registers vitest blocks that every adapter runs against the fake
 * provider server, asserting the same behaviours whatever the wire format (the suite knows where
 * each behaviour shows in each provider's request and response).
 */
export function runChatModelContract(options: ChatModelContractOptions): void {
  const wire = WIRE_EXPECTATIONS[options.provider];

  describe(`${options.name} (chat-model contract, ${options.provider} wire)`, () => {
    let fake: FakeProvider;
    let model: ChatModel;

    beforeAll(async () => {
      fake = await startFakeProvider({ provider: options.provider });
      model = options.createModel(fake.url);
    });
    afterAll(async () => {
      await fake?.close();
    });
    beforeEach(() => {
      fake.reset();
    });

    const expectedUsage = (usage: typeof USAGE) => ({
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      totalTokens: usage.inputTokens + usage.outputTokens,
      ...(wire.reportsCachedTokens ? { cachedInputTokens: usage.cachedInputTokens } : {}),
      ...(wire.reportsReasoningTokens ? { reasoningTokens: usage.reasoningTokens } : {}),
    });

    describe('tool calls', () => {
      it('parses a single call, sends the tools in the provider format and normalises usage', async () => {
        fake.push({
          toolCalls: [{ id: 'call_one', name: 'get_weather', arguments: { city: 'Paris' } }],
          usage: USAGE,
        });
        const response = await model.generate({ messages: [USER], tools: TOOLS });
        expect(response.toolCalls).toHaveLength(1);
        expect(response.toolCalls[0]).toMatchObject({ id: 'call_one', name: 'get_weather' });
        expect(toolCallArgumentsObject(response.toolCalls[0]!)).toEqual({ city: 'Paris' });
        expect(response.finishReason).toBe('tool-calls');
        expect(response.text).toBe('');
        expect(response.usage).toMatchObject(expectedUsage(USAGE));
        const body = fake.lastBody();
        expect(wire.toolNames(body)).toEqual(['get_weather', 'get_time']);
        expect(wire.toolSchema(body, 'get_weather')).toMatchObject({
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
        });
        expect(fake.requests).toHaveLength(1);
      });

      it('parses two parallel calls in order, keeping the text that came with them', async () => {
        fake.push({
          text: 'Let me look both up.',
          toolCalls: [
            { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
            { id: 'call_b', name: 'get_time', arguments: { timezone: 'Asia/Tokyo' } },
          ],
        });
        const response = await model.generate({ messages: [USER], tools: TOOLS });
        expect(response.text).toBe('Let me look both up.');
        expect(
          response.toolCalls.map((call) => [call.id, call.name, toolCallArgumentsObject(call)]),
        ).toEqual([
          ['call_a', 'get_weather', { city: 'Paris' }],
          ['call_b', 'get_time', { timezone: 'Asia/Tokyo' }],
        ]);
        expect(response.finishReason).toBe('tool-calls');
      });

      it('answers with text and no calls', async () => {
        fake.push({ text: 'It is sunny in Paris.', usage: USAGE });
        const response = await model.generate({ messages: [USER], tools: TOOLS });
        expect(response).toMatchObject({
          text: 'It is sunny in Paris.',
          toolCalls: [],
          finishReason: 'stop',
        });
      });

      it('makes up distinct ids when the provider sends none', async () => {
        fake.push(wire.callsWithoutIds);
        const response = await model.generate({ messages: [USER], tools: TOOLS });
        const ids = response.toolCalls.map((call) => call.id);
        expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
        expect(new Set(ids).size).toBe(ids.length);
      });
    });

    describe('continuation after tool results', () => {
      it('sends results in the shape the provider requires, over several turns', async () => {
        const system = 'You are a weather assistant.';
        fake.push(
          {
            text: 'Let me check.',
            toolCalls: [{ id: 'call_paris', name: 'get_weather', arguments: { city: 'Paris' } }],
          },
          { text: 'It is 21 °C in Paris.', usage: USAGE },
        );
        const first = await model.generate({
          messages: [{ role: 'system', content: system }, USER],
          tools: TOOLS,
        });
        expect(first.text).toBe('Let me check.');
        wire.assertSystemPrompt(fake.lastBody(), system);
        const messages: Message[] = [
          { role: 'system', content: system },
          ...toolTurnMessages(first, [textResult('call_paris', 'get_weather', '{"celsius":21}')]),
        ];
        const second = await model.generate({ messages, tools: TOOLS });
        expect(second).toMatchObject({
          text: 'It is 21 °C in Paris.',
          toolCalls: [],
          finishReason: 'stop',
        });
        const body = fake.lastBody();
        wire.assertSystemPrompt(body, system);
        wire.assertContinuation(body, {
          assistantText: 'Let me check.',
          calls: [{ id: 'call_paris', name: 'get_weather', arguments: { city: 'Paris' } }],
          results: [
            {
              toolCallId: 'call_paris',
              toolName: 'get_weather',
              text: '{"celsius":21}',
              isError: false,
            },
          ],
        });
      });

      it('sends a failed result as an error the model can read, beside a successful one', async () => {
        fake.push(
          {
            toolCalls: [
              { id: 'call_ok', name: 'get_weather', arguments: { city: 'Paris' } },
              { id: 'call_bad', name: 'get_time', arguments: { timezone: 'Mars/Olympus' } },
            ],
          },
          { text: 'Paris is sunny; the time zone was not found.' },
        );
        const first = await model.generate({ messages: [USER], tools: TOOLS });
        const failure = errorResult('call_bad', 'get_time', {
          category: 'invalidArguments',
          message: 'unknown time zone Mars/Olympus',
        });
        await model.generate({
          messages: toolTurnMessages(first, [
            textResult('call_ok', 'get_weather', 'sunny'),
            failure,
          ]),
          tools: TOOLS,
        });
        wire.assertContinuation(fake.lastBody(), {
          assistantText: '',
          calls: [
            { id: 'call_ok', name: 'get_weather', arguments: { city: 'Paris' } },
            { id: 'call_bad', name: 'get_time', arguments: { timezone: 'Mars/Olympus' } },
          ],
          results: [
            { toolCallId: 'call_ok', toolName: 'get_weather', text: 'sunny', isError: false },
            {
              toolCallId: 'call_bad',
              toolName: 'get_time',
              text: 'unknown time zone Mars/Olympus',
              isError: true,
            },
          ],
        });
      });

      it('sends an image result as an image where the provider accepts it, else as text with a warning', async () => {
        const image = {
          data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
          mediaType: 'image/png',
        };
        fake.push({ text: 'A single white pixel.' });
        const messages: Message[] = [
          USER,
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'call_img', name: 'get_weather', arguments: { city: 'Paris' } }],
          },
          {
            role: 'tool',
            results: [
              {
                toolCallId: 'call_img',
                toolName: 'get_weather',
                isError: false,
                content: [
                  { type: 'text', text: 'radar image:' },
                  { type: 'image', ...image },
                ],
              },
            ],
          },
        ];
        const response = await model.generate({ messages, tools: TOOLS });
        wire.assertImageResult(fake.lastBody(), image, response.warnings);
      });
    });

    describe('tool choice', () => {
      const choices: Array<[string, Exclude<ToolChoice, { type: 'allowed' }>, FakeAnswer]> = [
        ['auto', 'auto', { text: 'No tool needed.' }],
        ['none (tools stay declared)', 'none', { text: 'Answering without tools.' }],
        [
          'required',
          'required',
          { toolCalls: [{ id: 'call_r', name: 'get_time', arguments: { timezone: 'UTC' } }] },
        ],
        [
          'a specific tool',
          { type: 'tool', toolName: 'get_weather' },
          { toolCalls: [{ id: 'call_s', name: 'get_weather', arguments: { city: 'Oslo' } }] },
        ],
      ];
      for (const [label, choice, answer] of choices) {
        it(`sends ${label} in the provider's form`, async () => {
          fake.push(answer);
          const response = await model.generate({
            messages: [USER],
            tools: TOOLS,
            toolChoice: choice,
          });
          wire.assertToolChoice(fake.lastBody(), choice);
          expect(
            response.warnings.filter((warning) => warning.type === 'tool-choice-ignored'),
          ).toEqual([]);
        });
      }

      it('rejects a tool choice naming a tool the request does not have, before sending', async () => {
        const error = await captureError(() =>
          model.generate({
            messages: [USER],
            tools: TOOLS,
            toolChoice: { type: 'tool', toolName: 'nope' },
          }),
        );
        expect(error).toMatchObject({ name: 'InvalidToolChoiceError' });
        expect(fake.requests).toHaveLength(0);
      });

      it('sends parallel tool calls on and off', async () => {
        fake.push({ text: 'a' }, { text: 'b' });
        await model.generate({ messages: [USER], tools: TOOLS, parallelToolCalls: false });
        wire.assertParallelToolCalls(fake.lastBody(), false);
        await model.generate({ messages: [USER], tools: TOOLS, parallelToolCalls: true });
        wire.assertParallelToolCalls(fake.lastBody(), true);
      });

      if (!wire.enforcesToolChoice) {
        it('reports a tool choice the model ignored (checked after the fact)', async () => {
          fake.push(
            { toolCalls: [{ id: 'call_x', name: 'get_weather', arguments: { city: 'Paris' } }] },
            { toolCalls: [{ id: 'call_y', name: 'get_time', arguments: { timezone: 'UTC' } }] },
            { text: 'no call' },
          );
          const none = await model.generate({ messages: [USER], tools: TOOLS, toolChoice: 'none' });
          expect(none.warnings.map((warning) => warning.type)).toContain('tool-choice-ignored');
          const specific = await model.generate({
            messages: [USER],
            tools: TOOLS,
            toolChoice: { type: 'tool', toolName: 'get_weather' },
          });
          expect(specific.warnings.map((warning) => warning.type)).toContain('tool-choice-ignored');
          const required = await model.generate({
            messages: [USER],
            tools: TOOLS,
            toolChoice: 'required',
          });
          expect(required.warnings.map((warning) => warning.type)).toContain('tool-choice-ignored');
        });
      }

      if (!(wire.enforcesParallelToolCalls ?? wire.enforcesToolChoice)) {
        it('reports parallel calls made when they were turned off', async () => {
          fake.push({
            toolCalls: [
              { id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } },
              { id: 'call_2', name: 'get_time', arguments: { timezone: 'UTC' } },
            ],
          });
          const response = await model.generate({
            messages: [USER],
            tools: TOOLS,
            parallelToolCalls: false,
          });
          expect(response.warnings.map((warning) => warning.type)).toContain(
            'parallel-calls-ignored',
          );
          expect(response.toolCalls).toHaveLength(2);
        });
      }
    });

    describe('streaming', () => {
      const scenarios: Array<[string, FakeAnswer]> = [
        ['text only', { text: 'It is sunny in Paris today, 21 degrees.', usage: USAGE }],
        [
          'text and two calls',
          {
            text: 'Checking both.',
            toolCalls: [
              { id: 'call_s1', name: 'get_weather', arguments: { city: 'Paris' } },
              { id: 'call_s2', name: 'get_time', arguments: { timezone: 'Asia/Tokyo' } },
            ],
            usage: USAGE,
          },
        ],
        [
          'reasoning then text',
          { reasoning: 'The user wants the weather.', text: 'Sunny.', usage: USAGE },
        ],
      ];
      const chunkings: Array<[string, FakeChunking]> = [
        ['default chunking', {}],
        ['one-character fragments', { textChunkSize: 1, argumentsChunkSize: 1 }],
        ['whole calls in one chunk', { wholeCallInOneChunk: true }],
        ['ids repeated in every chunk', { omitIdAfterFirst: false }],
        ['no index on deltas', { omitIndex: true }],
      ];
      for (const [label, answer] of scenarios) {
        for (const [chunkLabel, chunking] of chunkings) {
          it(`gives the same result as generate (${label}, ${chunkLabel})`, async () => {
            fake.push(answer, { ...answer, chunking });
            const generated = await model.generate({ messages: [USER], tools: TOOLS });
            expect(fake.lastBody().stream ?? false).not.toBe(true);
            const { parts, response } = await collectCheckedStream(model, {
              messages: [USER],
              tools: TOOLS,
            });
            wire.assertStreamRequest(fake.lastBody(), fake.requests.at(-1)!.path);
            expect(comparableResponse(response)).toEqual(comparableResponse(generated));
            expect(response.usage).toMatchObject(expectedUsage(USAGE));
            if (answer.reasoning) {
              expect(
                parts
                  .flatMap((part) => (part.type === 'reasoning-delta' ? [part.delta] : []))
                  .join(''),
              ).toBe(answer.reasoning);
            }
          });
        }
      }
    });

    describe('structured output', () => {
      const schema = {
        type: 'object',
        properties: { answer: { type: 'string' }, confidence: { type: 'number' } },
        required: ['answer', 'confidence'],
        additionalProperties: false,
      } satisfies JsonSchema;
      const value = { answer: 'Paris', confidence: 0.9 };
      it('returns the parsed object, the same streamed or not', async () => {
        const turn = (request: { body: Record<string, unknown> }) =>
          wire.structuredOutputTurn(request.body, value);
        fake.push(turn, turn);
        const request: ChatRequest = {
          messages: [USER],
          responseFormat: { type: 'json', schema, name: 'verdict' },
        };
        const response = await model.generate(request);
        wire.assertStructuredOutputRequest(fake.lastBody(), 'verdict');
        expect(response.object).toEqual(value);
        expect(response.toolCalls).toEqual([]);
        expect(response.finishReason).toBe('stop');
        const streamed = await collectCheckedStream(model, request);
        expect(streamed.response.object).toEqual(value);
      });
    });

    describe('bad arguments from the model', () => {
      const malformed = '{"city" = "Paris"}';
      it('surfaces malformed arguments as sent, never as {}', async () => {
        const turn: FakeAnswer = {
          toolCalls: [{ id: 'call_m', name: 'get_weather', arguments: malformed }],
        };
        fake.push(turn, turn);
        for (const response of [
          await model.generate({ messages: [USER], tools: TOOLS }),
          (await collectCheckedStream(model, { messages: [USER], tools: TOOLS })).response,
        ]) {
          expect(response.toolCalls[0]).toMatchObject({
            id: 'call_m',
            name: 'get_weather',
            arguments: malformed,
          });
          const parsed = parseToolArguments(
            CONTRACT_TOOLS.weather.inputSchema,
            response.toolCalls[0]!.arguments,
            { toolName: 'get_weather' },
          );
          expect(parsed.success).toBe(false);
          if (!parsed.success) expect(parsed.error.problem).toBe('malformed');
        }
      });

      it('surfaces arguments cut off by the token limit as truncated', async () => {
        const truncated = '{"city": "Par';
        const turn: FakeAnswer = {
          toolCalls: [{ id: 'call_t', name: 'get_weather', arguments: truncated }],
          finishReason: 'length',
        };
        fake.push(turn, turn);
        for (const response of [
          await model.generate({ messages: [USER], tools: TOOLS }),
          (await collectCheckedStream(model, { messages: [USER], tools: TOOLS })).response,
        ]) {
          expect(response.finishReason).toBe('length');
          expect(response.toolCalls[0]).toMatchObject({
            id: 'call_t',
            name: 'get_weather',
            arguments: truncated,
          });
          const parsed = parseToolArguments(
            CONTRACT_TOOLS.weather.inputSchema,
            response.toolCalls[0]!.arguments,
            { outputTruncated: true },
          );
          expect(parsed.success).toBe(false);
          if (!parsed.success) expect(parsed.error.problem).toBe('truncated');
        }
      });
    });

    describe('cancellation and broken streams', () => {
      it('rejects with CancelledError when aborted while waiting for an answer', async () => {
        fake.push({ hang: true });
        const controller = new AbortController();
        const pending = captureError(() =>
          model.generate({ messages: [USER], tools: TOOLS, signal: controller.signal }),
        );
        await vi.waitFor(() => expect(fake.requests).toHaveLength(1));
        controller.abort();
        expect(await pending).toMatchObject({ name: 'CancelledError', code: 'cancelled' });
      });

      it('rejects with CancelledError when aborted in the middle of a stream', async () => {
        fake.push({
          stallAfter: 5,
          turn: { text: 'A long answer that stalls after a few chunks.' },
        });
        const controller = new AbortController();
        const error = await captureError(async () => {
          for await (const part of model.stream({ messages: [USER], signal: controller.signal })) {
            if (part.type === 'text-delta') controller.abort();
          }
        });
        expect(error).toMatchObject({ name: 'CancelledError', code: 'cancelled' });
      });

      it('rejects with CancelledError at once for a signal aborted before the call', async () => {
        const controller = new AbortController();
        controller.abort();
        expect(
          await captureError(() => model.generate({ messages: [USER], signal: controller.signal })),
        ).toMatchObject({ name: 'CancelledError' });
        expect(
          await captureError(() =>
            drain(model.stream({ messages: [USER], signal: controller.signal })),
          ),
        ).toMatchObject({ name: 'CancelledError' });
      });

      it('fails a dropped stream with StreamProtocolError instead of hanging', async () => {
        fake.push({ dropAfter: 3 });
        const error = await captureError(() => drain(model.stream({ messages: [USER] })));
        expect(error).toMatchObject({ name: 'StreamProtocolError', code: 'stream_protocol' });
      });

      it('fails a dropped JSON answer with a provider error', async () => {
        fake.push({ dropAfter: 2 });
        const error = await captureError(() => model.generate({ messages: [USER] }));
        expect(ProviderError.isProviderError(error), String(error)).toBe(true);
      });

      it('maps an error event inside a stream to a provider error that keeps its message', async () => {
        fake.push({
          raw: {
            contentType: wire.errors.streamErrorEvent.contentType,
            body: wire.errors.streamErrorEvent.body,
          },
        });
        const error = await captureError(() => drain(model.stream({ messages: [USER] })));
        expect(ProviderError.isProviderError(error), String(error)).toBe(true);
        expect((error as Error).message).toContain(wire.errors.streamErrorEvent.mentions);
      });
    });

    describe('provider errors', () => {
      it('maps 401 to AuthenticationError', async () => {
        fake.push({ error: wire.errors.unauthorized });
        const error = await captureError(() => model.generate({ messages: [USER] }));
        expect(error).toMatchObject({
          name: 'AuthenticationError',
          code: 'authentication',
          statusCode: 401,
          retryable: false,
        });
        expect(fake.requests).toHaveLength(1);
      });

      it('maps 429 to RateLimitError with the retry-after delay', async () => {
        fake.push({ error: { status: 429, headers: { 'retry-after': '2' } } });
        const error = await captureError(() => model.generate({ messages: [USER] }));
        expect(error).toMatchObject({
          name: 'RateLimitError',
          code: 'rate_limited',
          retryAfterMs: 2000,
          retryable: true,
          statusCode: 429,
        });
        expect(fake.requests).toHaveLength(1);
      });

      it('maps a context-length 400 to ContextOverflowError', async () => {
        fake.push({ error: wire.errors.contextOverflow });
        expect(
          await captureError(() => model.generate({ messages: [USER], tools: TOOLS })),
        ).toMatchObject({ name: 'ContextOverflowError', code: 'context_overflow' });
      });

      it('maps a rejected tool schema to SchemaRejectedError', async () => {
        fake.push({ error: wire.errors.schemaRejected });
        const error = await captureError(() => model.generate({ messages: [USER], tools: TOOLS }));
        expect(error).toMatchObject({ name: 'SchemaRejectedError', code: 'schema_rejected' });
        if (wire.errors.schemaRejected.toolName)
          expect(error).toMatchObject({ toolName: wire.errors.schemaRejected.toolName });
      });

      it('maps 500 and overload statuses to retryable ServerError', async () => {
        fake.push({ error: { status: 500 } }, { error: wire.errors.overloaded });
        expect(await captureError(() => model.generate({ messages: [USER] }))).toMatchObject({
          name: 'ServerError',
          code: 'server_error',
          retryable: true,
        });
        expect(await captureError(() => model.generate({ messages: [USER] }))).toMatchObject({
          name: 'ServerError',
          code: 'overloaded',
          retryable: true,
        });
        expect(fake.requests).toHaveLength(2);
      });

      it('maps HTTP errors of a stream request the same way', async () => {
        fake.push({ error: { status: 429, headers: { 'retry-after': '3' } } });
        expect(await captureError(() => drain(model.stream({ messages: [USER] })))).toMatchObject({
          name: 'RateLimitError',
          retryAfterMs: 3000,
        });
      });
    });

    describe('recorded wire transcripts', () => {
      for (const fixture of wire.fixtures) {
        it(`parses ${fixture.fixture}`, async () => {
          fake.push({ raw: wireFixture(fixture.fixture) });
          const response = fixture.stream
            ? (await collectCheckedStream(model, { messages: [USER] })).response
            : await model.generate({ messages: [USER] });
          expect(response.text).toBe(fixture.text);
          expect(response.finishReason).toBe(fixture.finishReason);
          expect(
            response.toolCalls.map((call) => ({
              ...(fixture.calls.some((c) => c.id) ? { id: call.id } : {}),
              name: call.name,
              arguments: toolCallArgumentsObject(call),
            })),
          ).toEqual(
            fixture.calls.map((call) => ({
              ...(fixture.calls.some((c) => c.id) ? { id: call.id } : {}),
              name: call.name,
              arguments: call.arguments,
            })),
          );
          if (fixture.usage) expect(response.usage).toMatchObject(fixture.usage);
        });
      }
    });
  });
}
