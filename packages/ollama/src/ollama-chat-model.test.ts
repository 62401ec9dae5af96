import {
  AuthenticationError,
  CancelledError,
  ConnectionError,
  ContextOverflowError,
  InvalidToolArgumentsError,
  ProviderError,
  RateLimitError,
  SchemaRejectedError,
  ServerError,
  StreamProtocolError,
  collectStream,
  errorResult,
  textResult,
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
import type { OllamaModelSettings } from './ollama-chat-model.js';
import { createOllama } from './ollama-provider.js';

const weather: ToolSpec = {
  name: 'get_weather',
  description: 'Get the weather in a given city',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string', description: 'The city to get the weather for' } },
    required: ['city'],
  },
};
const time: ToolSpec = {
  name: 'get_time',
  description: 'Get the local time in a given city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const ask: Message[] = [{ role: 'user', content: 'what is the weather in Toronto?' }];

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ provider: 'ollama' });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

async function arrived(count: number): Promise<void> {
  await vi.waitFor(() => expect(fake.requests.length).toBeGreaterThanOrEqual(count));
}

function model(settings?: OllamaModelSettings, headers?: Record<string, string>) {
  return createOllama({ host: fake.url, ...(headers ? { headers } : {}) })('llama3.2', settings);
}

describe('OllamaChatModel request building', () => {
  it('sends the follow-up turn exactly as the recorded request (tool_calls as objects, role tool + tool_name)', async () => {
    fake.push({ text: 'It is 11 degrees celsius in Toronto.' });
    const response = await model().generate({
      tools: [weather],
      messages: [
        ...ask,
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Toronto"}' }],
        },
        { role: 'tool', results: [textResult('call_1', 'get_weather', '11 degrees celsius')] },
      ],
    });
    expect(fake.lastBody()).toEqual(wireFixtureJson('ollama-chat-tools-followup-request.json'));
    expect(fake.requests[0]!.path).toBe('/api/chat');
    expect(response.text).toBe('It is 11 degrees celsius in Toronto.');
  });

  it('maps sampling settings to options, and sends think, keep_alive, headers and raw provider options', async () => {
    fake.push({ text: 'ok' });
    await model(
      { think: true, keepAlive: '10m', options: { num_ctx: 8192, seed: 1 } },
      { authorization: 'Bearer t' },
    ).generate({
      messages: [{ role: 'system', content: 'Be brief.' }, ...ask],
      temperature: 0.1,
      topP: 0.9,
      maxOutputTokens: 256,
      stopSequences: ['END'],
      headers: { 'x-trace': 'abc' },
      providerOptions: { ollama: { options: { seed: 7 }, logprobs: true } },
    });
    expect(fake.lastBody()).toEqual({
      model: 'llama3.2',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'what is the weather in Toronto?' },
      ],
      stream: false,
      think: true,
      keep_alive: '10m',
      options: {
        num_ctx: 8192,
        seed: 7,
        temperature: 0.1,
        top_p: 0.9,
        num_predict: 256,
        stop: ['END'],
      },
      logprobs: true,
    });
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer t');
    expect(fake.requests[0]!.headers['x-trace']).toBe('abc');
  });

  it('honours toolChoice "none" by declaring no tools when no earlier turn used tools', async () => {
    fake.push({ text: 'a' });
    await model().generate({ messages: ask, tools: [weather, time], toolChoice: 'none' });
    expect(fake.lastBody().tools).toBeUndefined();
  });

  it('keeps the tools declared for toolChoice "none" when earlier turns used tools, and reports a call made anyway', async () => {
    fake.push({ toolCalls: [{ name: 'get_time', arguments: { city: 'Toronto' } }] });
    const response = await model().generate({
      tools: [weather, time],
      toolChoice: 'none',
      messages: [
        ...ask,
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Toronto' } }],
        },
        { role: 'tool', results: [textResult('c1', 'get_weather', 'cold')] },
      ],
    });
    expect((fake.lastBody().tools as unknown[]).length).toBe(2);
    expect(fake.lastBody().tool_choice).toBeUndefined();
    expect(response.warnings).toEqual([expect.objectContaining({ type: 'tool-choice-ignored' })]);
  });

  it('declares only the chosen tool for a specific tool choice', async () => {
    fake.push({ toolCalls: [{ name: 'get_time', arguments: { city: 'Toronto' } }] });
    await model().generate({
      messages: ask,
      tools: [weather, time],
      toolChoice: { type: 'tool', toolName: 'get_time' },
    });
    expect(
      (fake.lastBody().tools as Array<{ function: { name: string } }>).map(
        (tool) => tool.function.name,
      ),
    ).toEqual(['get_time']);
  });

  it('says in the text that a result failed, since Ollama has no error flag', async () => {
    fake.push({ text: 'ok' });
    await model().generate({
      tools: [weather],
      messages: [
        ...ask,
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'c1', name: 'get_weather', arguments: { city: 'X' } },
            { id: 'c2', name: 'get_weather', arguments: { city: 'Y' } },
          ],
        },
        {
          role: 'tool',
          results: [
            errorResult('c1', 'get_weather', {
              category: 'resourceNotFound',
              message: 'no such city',
            }),
            {
              toolCallId: 'c2',
              toolName: 'get_weather',
              isError: true,
              content: [{ type: 'text', text: 'boom' }],
            },
          ],
        },
      ],
    });
    const messages = fake.lastBody().messages as Array<{ role: string; content: string }>;
    expect(messages.slice(2)).toEqual([
      {
        role: 'tool',
        content: 'Tool execution failed (resourceNotFound): no such city',
        tool_name: 'get_weather',
      },
      { role: 'tool', content: 'Tool execution failed: boom', tool_name: 'get_weather' },
    ]);
  });

  it('moves images out of tool messages into a user message after the results, with a placeholder and a warning', async () => {
    fake.push({ text: 'Two radar images.' });
    const response = await model().generate({
      tools: [weather],
      messages: [
        ...ask,
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Toronto' } }],
        },
        {
          role: 'tool',
          results: [
            {
              toolCallId: 'c1',
              toolName: 'get_weather',
              isError: false,
              content: [
                { type: 'text', text: 'radar:' },
                { type: 'image', data: 'AAAA', mediaType: 'image/png' },
              ],
            },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'and this one?' },
            { type: 'image', data: 'BBBB', mediaType: 'image/jpeg' },
          ],
        },
      ],
    });
    const messages = (fake.lastBody().messages as unknown[]).slice(2);
    expect(messages).toEqual([
      {
        role: 'tool',
        content: 'radar:\n[image 1: image/png, attached to the next user message]',
        tool_name: 'get_weather',
      },
      {
        role: 'user',
        content:
          'Images returned by the tool calls above, in order: image 1 (image/png) from get_weather (call c1).',
        images: ['AAAA'],
      },
      { role: 'user', content: 'and this one?', images: ['BBBB'] },
    ]);
    expect(response.warnings.map((warning) => warning.type)).toEqual(['image-as-text']);
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
          toolCalls: [{ id: 'c1', name: 'get_weather', arguments: {} }],
        },
        { role: 'user', content: 'skip it' },
      ],
    });
    const messages = fake.lastBody().messages as Array<{ role: string; content: string }>;
    expect(messages[2]).toMatchObject({ role: 'tool', tool_name: 'get_weather' });
    expect(messages[2]!.content).toMatch(/cancelled/);
    expect(response.warnings[0]).toMatchObject({ type: 'transcript-repaired' });
  });
});

describe('OllamaChatModel responses', () => {
  it('parses the recorded response: object arguments, a generated id, usage from eval counts', async () => {
    fake.push({ raw: wireFixture('ollama-chat-tools.json') });
    const response = await model().generate({ messages: ask, tools: [weather] });
    expect(response.toolCalls).toHaveLength(1);
    expect(response.toolCalls[0]).toMatchObject({
      name: 'get_weather',
      arguments: { city: 'Tokyo' },
    });
    expect(response.toolCalls[0]!.id).toMatch(/^call_/);
    expect(response.finishReason).toBe('tool-calls');
    expect(response.rawFinishReason).toBe('stop');
    expect(response.usage).toEqual({ inputTokens: 169, outputTokens: 18, totalTokens: 187 });
    expect(response.providerMetadata).toEqual({
      ollama: {
        total_duration: 3244883583,
        load_duration: 2969184542,
        prompt_eval_duration: 141656333,
        eval_duration: 133293625,
      },
    });
  });

  it('keeps the ids current servers send', async () => {
    fake.push({ raw: wireFixture('ollama-chat-tools-parallel.json') });
    const response = await model().generate({ messages: ask });
    expect(response.toolCalls.map((call) => call.id)).toEqual(['call_k3x9q2m7', 'call_p0w4z8d1']);
  });

  it('streams recorded NDJSON into start, delta and call parts', async () => {
    fake.push({ raw: wireFixture('ollama-chat-tools-parallel-stream.ndjson') });
    const parts: ChatStreamPart[] = [];
    for await (const part of model().stream({ messages: ask })) parts.push(part);
    expect(fake.lastBody().stream).toBe(true);
    expect(parts.slice(0, 3)).toEqual([
      { type: 'tool-call-start', id: 'call_k3x9q2m7', name: 'get_temperature', index: 0 },
      {
        type: 'tool-call-delta',
        id: 'call_k3x9q2m7',
        name: 'get_temperature',
        index: 0,
        argumentsDelta: '{"city":"New York"}',
      },
      {
        type: 'tool-call',
        toolCall: { id: 'call_k3x9q2m7', name: 'get_temperature', arguments: { city: 'New York' } },
      },
    ]);
    const finish = parts.at(-1)!;
    expect(finish.type === 'finish' && finish.response.usage).toEqual({
      inputTokens: 169,
      outputTokens: 15,
      totalTokens: 184,
    });
  });

  it('accepts tool calls on the done:true line', async () => {
    fake.push({
      raw: {
        contentType: 'application/x-ndjson',
        body:
          '{"model":"llama3.2","message":{"role":"assistant","content":"Checking."},"done":false}\n' +
          '{"model":"llama3.2","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Oslo"}}}]},"done":true,"done_reason":"stop","prompt_eval_count":3,"eval_count":4}\n',
      },
    });
    const response = await collectStream(model().stream({ messages: ask, tools: [weather] }));
    expect(response.text).toBe('Checking.');
    expect(response.toolCalls).toMatchObject([
      { name: 'get_weather', arguments: { city: 'Oslo' } },
    ]);
    expect(response.finishReason).toBe('tool-calls');
  });

  it('returns thinking as reasoning, the same streamed or not', async () => {
    const turn = {
      reasoning: 'Toronto is in Canada.',
      text: 'Cold.',
      usage: { inputTokens: 5, outputTokens: 6 },
    };
    fake.push(turn, turn);
    const generated = await model({ think: true }).generate({ messages: ask });
    const streamed = await collectStream(model({ think: true }).stream({ messages: ask }));
    expect(streamed).toEqual(generated);
    expect(generated.reasoning).toEqual([{ type: 'reasoning', text: 'Toronto is in Canada.' }]);
  });

  it('reports parallel calls made although parallel calls were turned off', async () => {
    fake.push({
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'A' } },
        { name: 'get_time', arguments: { city: 'B' } },
      ],
    });
    const response = await model().generate({
      messages: ask,
      tools: [weather, time],
      parallelToolCalls: false,
    });
    expect(response.warnings.map((warning) => warning.type)).toEqual(['parallel-calls-ignored']);
  });
});

describe('OllamaChatModel structured output', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: { city: { type: 'string' }, celsius: { type: 'number' } },
    required: ['city', 'celsius'],
  };

  it('sends the schema as format and parses, repairs and validates the answer', async () => {
    fake.push(
      { text: '{"city":"Toronto","celsius":11}' },
      { text: "{'city': 'Toronto', 'celsius': 11,}" },
      { text: '{"city":"Toronto"}' },
    );
    const response = await model().generate({
      messages: ask,
      responseFormat: { type: 'json', schema },
    });
    expect(fake.lastBody().format).toEqual(schema);
    expect(response.object).toEqual({ city: 'Toronto', celsius: 11 });
    const repaired = await collectStream(
      model().stream({ messages: ask, responseFormat: { type: 'json', schema } }),
    );
    expect(repaired.object).toEqual({ city: 'Toronto', celsius: 11 });
    expect(repaired.warnings.map((warning) => warning.type)).toContain('arguments-repaired');
    const error = await model()
      .generate({ messages: ask, responseFormat: { type: 'json', schema } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidToolArgumentsError);
    expect((error as Error).message).toMatch(/celsius/);
  });
});

describe('OllamaChatModel errors', () => {
  it('raises UnsupportedFeatureError naming the model when it does not support tools', async () => {
    // Ollama's answer to a request with tools for a model without them.
    const refusal = {
      error: {
        status: 400,
        body: { error: 'registry.ollama.ai/library/gemma:2b does not support tools' },
      },
    };
    fake.push(refusal, refusal, {
      error: { status: 400, body: { error: 'does not support tools' } },
    });
    for (const run of [
      () => model().generate({ messages: ask, tools: [weather] }),
      () => collectStream(model().stream({ messages: ask, tools: [weather] })),
    ]) {
      await expect(run()).rejects.toMatchObject({
        name: 'UnsupportedFeatureError',
        feature: 'toolCalling',
        modelId: 'llama3.2',
        message: expect.stringContaining('model "llama3.2" does not support tool calling'),
      });
    }
    // Without tools in the request the text is not about them: an ordinary invalid request.
    await expect(model().generate({ messages: ask })).rejects.toMatchObject({
      name: 'InvalidRequestError',
    });
  });

  it('maps 401, 404, 429 (with retry-after), context overflow, schema rejection, 500 and 503', async () => {
    fake.push(
      { error: { status: 401, body: { error: 'unauthorized' } } },
      { error: { status: 404, body: { error: "model 'nope' not found, try pulling it first" } } },
      {
        error: {
          status: 429,
          body: { error: 'too many requests' },
          headers: { 'retry-after': '1.5' },
        },
      },
      { error: { status: 400, body: { error: 'the input length exceeds the context length' } } },
      {
        error: {
          status: 400,
          body: {
            error:
              'json: cannot unmarshal string into Go struct field Tool.tools.function.parameters',
          },
        },
      },
      { error: { status: 500, body: { error: 'llama runner process has terminated' } } },
      {
        error: {
          status: 503,
          body: { error: 'server busy, please try again.  maximum pending requests exceeded' },
        },
      },
    );
    const errors: unknown[] = [];
    for (let i = 0; i < 7; i++)
      errors.push(
        await model()
          .generate({ messages: ask, tools: [weather] })
          .catch((e: unknown) => e),
      );
    expect(errors[0]).toBeInstanceOf(AuthenticationError);
    expect(errors[1]).toMatchObject({ code: 'not_found', statusCode: 404 });
    expect(errors[1]).toBeInstanceOf(ProviderError);
    expect(errors[2]).toBeInstanceOf(RateLimitError);
    expect((errors[2] as RateLimitError).retryAfterMs).toBe(1500);
    expect(errors[3]).toBeInstanceOf(ContextOverflowError);
    expect(errors[4]).toBeInstanceOf(SchemaRejectedError);
    expect(errors[5]).toMatchObject({ name: 'ServerError', code: 'server_error', retryable: true });
    expect(errors[6]).toMatchObject({ name: 'ServerError', code: 'overloaded' });
  });

  it('maps an unreachable server to ConnectionError', async () => {
    const closed = await startFakeProvider({ provider: 'ollama' });
    const url = closed.url;
    await closed.close();
    const error = await createOllama({ host: url })('llama3.2')
      .generate({ messages: ask })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
  });

  it('maps an error line inside a stream to ServerError with the server text', async () => {
    fake.push({
      raw: {
        contentType: 'application/x-ndjson',
        body: '{"model":"llama3.2","message":{"role":"assistant","content":"Hel"},"done":false}\n{"error":"an error was encountered while running the model: unexpected EOF"}\n',
      },
    });
    const error = await collectStream(model().stream({ messages: ask })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as Error).message).toMatch(/unexpected EOF/);
  });
});

describe('OllamaChatModel cancellation and dropped streams', () => {
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

  it('fails a stream that ends without its done line with StreamProtocolError', async () => {
    fake.push({
      raw: {
        contentType: 'application/x-ndjson',
        body: '{"model":"llama3.2","message":{"role":"assistant","content":"Hel"},"done":false}\n',
      },
    });
    await expect(collectStream(model().stream({ messages: ask }))).rejects.toBeInstanceOf(
      StreamProtocolError,
    );
  });

  it('fails a stream with a line that is not JSON instead of skipping the line', async () => {
    fake.push({
      raw: {
        contentType: 'application/x-ndjson',
        body:
          '{"model":"llama3.2","message":{"role":"assistant","content":"Hi"},"done":false}\n' +
          '{"model":"llama3.2","message":{"role":"assistant","tool_calls":[{"function":{"name":"get_wea\n' +
          '{"model":"llama3.2","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}\n',
      },
    });
    const error = await collectStream(model().stream({ messages: ask })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect((error as Error).message).toMatch(/not JSON: \{"model"/);
  });

  it('fails a dropped stream with StreamProtocolError', async () => {
    fake.push({ dropAfter: 2 });
    await expect(collectStream(model().stream({ messages: ask }))).rejects.toBeInstanceOf(
      StreamProtocolError,
    );
  });

  it('fails a stalled stream with StreamProtocolError after the idle timeout (provider default, model override)', async () => {
    fake.push({ stallAfter: 2 }, { stallAfter: 2 });
    const first = await collectStream(
      createOllama({ host: fake.url, idleTimeoutMs: 150 })('llama3.2').stream({ messages: ask }),
    ).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(StreamProtocolError);
    expect((first as Error).message).toMatch(/150 ms/);
    const second = await collectStream(
      createOllama({ host: fake.url, idleTimeoutMs: 60_000 })('llama3.2', {
        idleTimeoutMs: 120,
      }).stream({ messages: ask }),
    ).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(StreamProtocolError);
    expect((second as Error).message).toMatch(/120 ms/);
  });
});

describe('OllamaChatModel early exit', () => {
  it('aborts the HTTP request when the consumer stops reading', async () => {
    fake.push({ stallAfter: 3 });
    const signals: AbortSignal[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      if (init?.signal) signals.push(init.signal);
      return fetch(input, init);
    };
    const streaming = createOllama({ host: fake.url, fetch: recordingFetch })('llama3.2');
    for await (const part of streaming.stream({ messages: ask })) {
      if (part.type === 'text-delta') break;
    }
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);
  });
});
