import type { ChatResponse, ChatWarning, ToolChoice } from '@toolwire/schema';
import { expect } from 'vitest';
import type { FakeProviderKind, StaticFakeTurn } from './fake-turn.js';
import { wireFixture } from './wire-fixtures.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- these read deep into recorded request bodies */

/** What a continuation request must carry, provider-neutral. */
export interface ExpectedContinuation {
  assistantText: string;
  calls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>;
  results: Array<{ toolCallId: string; toolName: string; text: string; isError: boolean }>;
}

/** A recorded transcript and what parsing it must give. */
export interface FixtureExpectation {
  fixture: string;
  stream: boolean;
  text: string;
  calls: Array<{ id?: string; name: string; arguments: Record<string, unknown> }>;
  finishReason: ChatResponse['finishReason'];
  usage?: Partial<ChatResponse['usage']>;
}

/**
 * How each wire format shows the behaviours the contract checks. The contract asserts the same
 * behaviours for every provider; only where they appear in the request differs.
 */
export interface WireExpectations {
  /** Names of the tools declared in a request body. */
  toolNames(body: any): string[];
  /** The declared tool's JSON Schema, as sent. */
  toolSchema(body: any, name: string): any;
  assertToolChoice(body: any, choice: Exclude<ToolChoice, { type: 'allowed' }>): void;
  assertParallelToolCalls(body: any, parallel: boolean): void;
  /** Whether the provider enforces tool choice / parallel calls (else it is checked after the fact). */
  enforcesToolChoice: boolean;
  /** Whether the provider has a parallel-calls switch (default: as `enforcesToolChoice`). */
  enforcesParallelToolCalls?: boolean;
  /** `path` is the request's URL path (Gemini says "stream" there, not in the body). */
  assertStreamRequest(body: any, path: string): void;
  assertSystemPrompt(body: any, text: string): void;
  assertContinuation(body: any, expected: ExpectedContinuation): void;
  /** An image tool result: sent as an image, or replaced by text with an `image-as-text` warning. */
  assertImageResult(
    body: any,
    image: { data: string; mediaType: string },
    warnings: ChatWarning[],
  ): void;
  assertStructuredOutputRequest(body: any, schemaName: string): void;
  /** The answer a real provider gives to a structured-output request. */
  structuredOutputTurn(body: any, value: unknown): StaticFakeTurn;
  reportsCachedTokens: boolean;
  reportsReasoningTokens: boolean;
  errors: {
    unauthorized: { status: number; body: unknown };
    contextOverflow: { status: number; body: unknown };
    schemaRejected: { status: number; body: unknown; toolName?: string };
    overloaded: { status: number; body: unknown };
    /** A stream that starts fine and then carries an error event, and a text the error must mention. */
    streamErrorEvent: { body: string; contentType: string; mentions: string };
  };
  fixtures: FixtureExpectation[];
  /** A non-streamed answer with two calls that carry no (or an empty) id. */
  callsWithoutIds: StaticFakeTurn;
}

function textOfContent(content: any): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part: any) =>
        typeof part?.text === 'string'
          ? part.text
          : typeof part?.content === 'string'
            ? part.content
            : '',
      )
      .join('\n');
  return '';
}

const json = (body: unknown): StaticFakeTurn => ({
  raw: { contentType: 'application/json', body: JSON.stringify(body) },
});

const openai: WireExpectations = {
  callsWithoutIds: json({
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
          tool_calls: [
            { type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            {
              id: '',
              type: 'function',
              function: { name: 'get_time', arguments: '{"timezone":"UTC"}' },
            },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ],
  }),
  toolNames: (body) => (body.tools ?? []).map((tool: any) => tool.function?.name),
  toolSchema: (body, name) =>
    (body.tools ?? []).find((tool: any) => tool.function?.name === name)?.function?.parameters,
  assertToolChoice(body, choice) {
    expect(body.tools?.length ?? 0, 'tools stay declared whatever the tool choice').toBeGreaterThan(
      0,
    );
    if (typeof choice === 'object')
      expect(body.tool_choice).toEqual({ type: 'function', function: { name: choice.toolName } });
    else expect(body.tool_choice).toBe(choice);
  },
  assertParallelToolCalls(body, parallel) {
    expect(body.parallel_tool_calls).toBe(parallel);
  },
  enforcesToolChoice: true,
  assertStreamRequest(body) {
    expect(body.stream).toBe(true);
    expect(body.stream_options).toMatchObject({ include_usage: true });
  },
  assertSystemPrompt(body, text) {
    expect(body.messages[0]).toMatchObject({
      role: expect.stringMatching(/^(system|developer)$/),
      content: text,
    });
  },
  assertContinuation(body, expected) {
    const messages: any[] = body.messages;
    const at = messages.findIndex(
      (message) => message.role === 'assistant' && Array.isArray(message.tool_calls),
    );
    expect(at, 'the assistant message with tool_calls is resent').toBeGreaterThanOrEqual(0);
    const assistant = messages[at];
    expect(textOfContent(assistant.content)).toBe(expected.assistantText);
    expect(
      assistant.tool_calls.map((call: any) => ({
        id: call.id,
        type: call.type,
        name: call.function.name,
      })),
    ).toEqual(expected.calls.map((call) => ({ id: call.id, type: 'function', name: call.name })));
    assistant.tool_calls.forEach((call: any, i: number) => {
      expect(typeof call.function.arguments, 'OpenAI arguments are a JSON string').toBe('string');
      expect(JSON.parse(call.function.arguments)).toEqual(expected.calls[i]!.arguments);
    });
    expected.results.forEach((result, i) => {
      const message = messages[at + 1 + i];
      expect(message, `a role:"tool" message follows for ${result.toolCallId}`).toMatchObject({
        role: 'tool',
        tool_call_id: result.toolCallId,
      });
      expect(textOfContent(message.content)).toContain(result.text);
    });
  },
  assertImageResult(body, image, warnings) {
    const messages: any[] = body.messages;
    const tool = messages.find((message) => message.role === 'tool');
    expect(JSON.stringify(tool), 'tool messages accept only text').not.toContain(image.data);
    const after = messages[messages.indexOf(tool) + 1];
    expect(after?.role).toBe('user');
    expect(after.content).toContainEqual({
      type: 'image_url',
      image_url: { url: `data:${image.mediaType};base64,${image.data}` },
    });
    expect(warnings.map((warning) => warning.type)).toContain('image-as-text');
  },
  assertStructuredOutputRequest(body, schemaName) {
    expect(body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: schemaName },
    });
  },
  structuredOutputTurn: (_body, value) => ({ text: JSON.stringify(value) }),
  reportsCachedTokens: true,
  reportsReasoningTokens: true,
  errors: {
    unauthorized: {
      status: 401,
      body: {
        error: {
          message:
            'Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      },
    },
    contextOverflow: {
      status: 400,
      body: {
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      },
    },
    schemaRejected: {
      status: 400,
      body: {
        error: {
          message:
            "Invalid schema for function 'get_weather': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'city'.",
          type: 'invalid_request_error',
          param: 'tools[0].function.parameters',
          code: 'invalid_function_parameters',
        },
      },
      toolName: 'get_weather',
    },
    overloaded: {
      status: 503,
      body: {
        error: {
          message: 'The server is overloaded or not ready yet.',
          type: 'server_error',
          param: null,
          code: null,
        },
      },
    },
    streamErrorEvent: {
      contentType: 'text/event-stream',
      body:
        'data: {"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}\n\n' +
        'data: {"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}\n\n',
      mentions: 'The server had an error while processing your request',
    },
  },
  fixtures: [
    {
      fixture: 'openai-chat-tools.json',
      stream: false,
      text: '',
      calls: [
        {
          id: 'call_fdNz3vOBKYgOIpMdWotB9MjY',
          name: 'GetWeatherArgs',
          arguments: { city: 'Edinburgh', country: 'GB', units: 'c' },
        },
        {
          id: 'call_h1DWI1POMJLb0KwIyQHWXD4p',
          name: 'get_stock_price',
          arguments: { ticker: 'AAPL', exchange: 'NASDAQ' },
        },
      ],
      finishReason: 'tool-calls',
      usage: { inputTokens: 149, outputTokens: 60, totalTokens: 209 },
    },
    {
      fixture: 'openai-chat-tools-stream.sse',
      stream: true,
      text: '',
      calls: [
        {
          id: 'call_JMW1whyEaYG438VE1OIflxA2',
          name: 'GetWeatherArgs',
          arguments: { city: 'Edinburgh', country: 'GB', units: 'c' },
        },
        {
          id: 'call_DNYTawLBoN8fj3KN6qU9N1Ou',
          name: 'get_stock_price',
          arguments: { ticker: 'AAPL', exchange: 'NASDAQ' },
        },
      ],
      finishReason: 'tool-calls',
      usage: { inputTokens: 149, outputTokens: 60, totalTokens: 209 },
    },
    {
      fixture: 'xai-chat-tools.json',
      stream: false,
      text: '',
      calls: [{ id: 'call_93562515', name: 'weather', arguments: { location: 'San Francisco' } }],
      finishReason: 'tool-calls',
      // xAI counts reasoning outside completion_tokens (total = prompt + completion + reasoning).
      usage: {
        inputTokens: 291,
        outputTokens: 215,
        totalTokens: 506,
        cachedInputTokens: 244,
        reasoningTokens: 189,
      },
    },
    {
      fixture: 'xai-chat-tools-stream.sse',
      stream: true,
      text: '',
      calls: [{ id: 'call_55117580', name: 'weather', arguments: { location: 'San Francisco' } }],
      finishReason: 'tool-calls',
      usage: {
        inputTokens: 291,
        outputTokens: 222,
        totalTokens: 513,
        cachedInputTokens: 290,
        reasoningTokens: 196,
      },
    },
  ],
};

const anthropic: WireExpectations = {
  callsWithoutIds: json({
    id: 'msg_x',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [
      { type: 'tool_use', id: '', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: '', name: 'get_time', input: { timezone: 'UTC' } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  }),
  toolNames: (body) => (body.tools ?? []).map((tool: any) => tool.name),
  toolSchema: (body, name) =>
    (body.tools ?? []).find((tool: any) => tool.name === name)?.input_schema,
  assertToolChoice(body, choice) {
    expect(
      body.tools?.length ?? 0,
      'tools stay declared whatever the tool choice (none is sent as none)',
    ).toBeGreaterThan(0);
    if (choice === 'auto')
      expect(body.tool_choice ?? { type: 'auto' }).toMatchObject({ type: 'auto' });
    else if (choice === 'none') expect(body.tool_choice).toMatchObject({ type: 'none' });
    else if (choice === 'required') expect(body.tool_choice).toMatchObject({ type: 'any' });
    else expect(body.tool_choice).toMatchObject({ type: 'tool', name: choice.toolName });
  },
  assertParallelToolCalls(body, parallel) {
    if (parallel) expect(body.tool_choice?.disable_parallel_tool_use ?? false).toBe(false);
    else expect(body.tool_choice).toMatchObject({ disable_parallel_tool_use: true });
  },
  enforcesToolChoice: true,
  assertStreamRequest(body) {
    expect(body.stream).toBe(true);
  },
  assertSystemPrompt(body, text) {
    const system = typeof body.system === 'string' ? body.system : textOfContent(body.system);
    expect(system).toBe(text);
    expect(body.messages.some((message: any) => message.role === 'system')).toBe(false);
  },
  assertContinuation(body, expected) {
    const messages: any[] = body.messages;
    const at = messages.findIndex(
      (message) =>
        message.role === 'assistant' &&
        Array.isArray(message.content) &&
        message.content.some((block: any) => block.type === 'tool_use'),
    );
    expect(at, 'the assistant turn with tool_use blocks is resent').toBeGreaterThanOrEqual(0);
    const blocks: any[] = messages[at].content;
    const text = blocks
      .filter((block) => block.type === 'text')
      .map((block) => block.text)
      .join('');
    expect(text).toBe(expected.assistantText);
    expect(
      blocks
        .filter((block) => block.type === 'tool_use')
        .map((block) => ({ id: block.id, name: block.name, input: block.input })),
    ).toEqual(
      expected.calls.map((call) => ({ id: call.id, name: call.name, input: call.arguments })),
    );
    const next = messages[at + 1];
    expect(next.role, 'one user message follows with the results').toBe('user');
    expect(Array.isArray(next.content)).toBe(true);
    expected.results.forEach((result, i) => {
      const block = next.content[i];
      expect(block, `tool_result ${i} starts the user message`).toMatchObject({
        type: 'tool_result',
        tool_use_id: result.toolCallId,
      });
      expect(textOfContent(block.content)).toContain(result.text);
      if (result.isError) expect(block.is_error).toBe(true);
      else expect(block.is_error ?? false).toBe(false);
    });
    expect(body.tools?.length ?? 0, 'tools stay declared in a continuation').toBeGreaterThan(0);
  },
  assertImageResult(body, image) {
    const result = body.messages
      .flatMap((message: any) => (Array.isArray(message.content) ? message.content : []))
      .find((block: any) => block.type === 'tool_result');
    expect(result.content).toContainEqual({
      type: 'image',
      source: { type: 'base64', media_type: image.mediaType, data: image.data },
    });
  },
  assertStructuredOutputRequest(body) {
    expect(body.tool_choice?.type, 'structured output is a forced tool').toBe('tool');
    expect((body.tools ?? []).map((tool: any) => tool.name)).toContain(body.tool_choice.name);
  },
  structuredOutputTurn: (body, value) => ({
    toolCalls: [{ name: body.tool_choice?.name ?? 'missing_forced_tool', arguments: value }],
    finishReason: 'tool-calls',
  }),
  reportsCachedTokens: true,
  reportsReasoningTokens: false,
  errors: {
    unauthorized: {
      status: 401,
      body: {
        type: 'error',
        error: { type: 'authentication_error', message: 'invalid x-api-key' },
      },
    },
    contextOverflow: {
      status: 400,
      body: {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'prompt is too long: 210000 tokens > 200000 maximum',
        },
      },
    },
    schemaRejected: {
      status: 400,
      body: {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message:
            'tools.0.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 (https://json-schema.org/draft/2020-12). Learn more about tool use at https://docs.claude.com/en/docs/tool-use.',
        },
      },
      toolName: 'get_weather',
    },
    overloaded: {
      status: 529,
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    },
    streamErrorEvent: {
      contentType: 'text/event-stream',
      body:
        'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_x","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n' +
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      mentions: 'Overloaded',
    },
  },
  fixtures: [
    {
      fixture: 'anthropic-messages-tools.json',
      stream: false,
      text: '<thinking>\nThe updateIssueList tool was provided in the list of available functions. The tool has no required parameters, so it can be called without any additional information needed from the user.\n</thinking>\n\nOkay, I will update the current issue list:',
      calls: [{ id: 'toolu_01LRmxn9vGM1d2DZSDBowdZ1', name: 'updateIssueList', arguments: {} }],
      finishReason: 'tool-calls',
      usage: { inputTokens: 602, outputTokens: 93 },
    },
    {
      fixture: 'anthropic-messages-tools-stream.sse',
      stream: true,
      text: "I'll check the current weather in Paris for you.",
      calls: [
        {
          id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn',
          name: 'get_weather',
          arguments: { location: 'Paris' },
        },
      ],
      finishReason: 'tool-calls',
      usage: { inputTokens: 377, outputTokens: 65 },
    },
    {
      fixture: 'anthropic-messages-tools-noargs-stream.sse',
      stream: true,
      text: "I'll update the issue list for you.",
      calls: [{ name: 'updateIssueList', arguments: {} }],
      finishReason: 'tool-calls',
    },
  ],
};

const ollama: WireExpectations = {
  callsWithoutIds: { raw: wireFixture('ollama-chat-tools.json') },
  toolNames: (body) => (body.tools ?? []).map((tool: any) => tool.function?.name),
  toolSchema: (body, name) =>
    (body.tools ?? []).find((tool: any) => tool.function?.name === name)?.function?.parameters,
  assertToolChoice(body, choice) {
    expect(
      body.tool_choice,
      'Ollama has no tool_choice; it is checked after the fact',
    ).toBeUndefined();
    if (choice !== 'none') expect(body.tools?.length ?? 0).toBeGreaterThan(0);
  },
  assertParallelToolCalls(body) {
    expect(
      body.parallel_tool_calls,
      'Ollama has no parallel switch; it is checked after the fact',
    ).toBeUndefined();
  },
  enforcesToolChoice: false,
  assertStreamRequest(body) {
    expect(body.stream).not.toBe(false);
  },
  assertSystemPrompt(body, text) {
    expect(body.messages[0]).toEqual({ role: 'system', content: text });
  },
  assertContinuation(body, expected) {
    const messages: any[] = body.messages;
    const at = messages.findIndex(
      (message) => message.role === 'assistant' && Array.isArray(message.tool_calls),
    );
    expect(at, 'the assistant message with tool_calls is resent').toBeGreaterThanOrEqual(0);
    const assistant = messages[at];
    expect(assistant.content ?? '').toBe(expected.assistantText);
    expect(
      assistant.tool_calls.map((call: any) => ({
        name: call.function.name,
        arguments: call.function.arguments,
      })),
    ).toEqual(expected.calls.map((call) => ({ name: call.name, arguments: call.arguments })));
    expected.results.forEach((result, i) => {
      const message = messages[at + 1 + i];
      expect(message, `a role:"tool" message follows for ${result.toolName}`).toMatchObject({
        role: 'tool',
        tool_name: result.toolName,
      });
      expect(typeof message.content).toBe('string');
      expect(message.content).toContain(result.text);
    });
  },
  assertImageResult(body, image, warnings) {
    const sent = JSON.stringify(body.messages).includes(image.data);
    if (!sent)
      expect(
        warnings.map((warning) => warning.type),
        'an image not sent is reported',
      ).toContain('image-as-text');
  },
  assertStructuredOutputRequest(body) {
    expect(body.format, 'structured output uses format: <JSON schema>').toMatchObject({
      type: 'object',
    });
  },
  structuredOutputTurn: (_body, value) => ({ text: JSON.stringify(value) }),
  reportsCachedTokens: false,
  reportsReasoningTokens: false,
  errors: {
    unauthorized: { status: 401, body: { error: 'unauthorized' } },
    contextOverflow: {
      status: 400,
      body: { error: 'the input length exceeds the context length' },
    },
    schemaRejected: {
      status: 400,
      body: {
        error:
          'json: cannot unmarshal string into Go struct field Tool.tools.function.parameters of type api.ToolFunctionParameters',
      },
    },
    overloaded: {
      status: 503,
      body: { error: 'server busy, please try again.  maximum pending requests exceeded' },
    },
    streamErrorEvent: {
      contentType: 'application/x-ndjson',
      body:
        '{"model":"llama3.2","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"Hel"},"done":false}\n' +
        '{"error":"an error was encountered while running the model: unexpected EOF"}\n',
      mentions: 'an error was encountered while running the model',
    },
  },
  fixtures: [
    {
      fixture: 'ollama-chat-tools.json',
      stream: false,
      text: '',
      calls: [{ name: 'get_weather', arguments: { city: 'Tokyo' } }],
      finishReason: 'tool-calls',
      usage: { inputTokens: 169, outputTokens: 18 },
    },
    {
      fixture: 'ollama-chat-tools-stream.ndjson',
      stream: true,
      text: '',
      calls: [{ name: 'get_weather', arguments: { city: 'Tokyo' } }],
      finishReason: 'tool-calls',
      usage: { inputTokens: 169, outputTokens: 15 },
    },
    {
      fixture: 'ollama-chat-tools-parallel.json',
      stream: false,
      text: '',
      calls: [
        { id: 'call_k3x9q2m7', name: 'get_temperature', arguments: { city: 'New York' } },
        { id: 'call_p0w4z8d1', name: 'get_conditions', arguments: { city: 'New York' } },
      ],
      finishReason: 'tool-calls',
    },
    {
      fixture: 'ollama-chat-tools-parallel-stream.ndjson',
      stream: true,
      text: '',
      calls: [
        { id: 'call_k3x9q2m7', name: 'get_temperature', arguments: { city: 'New York' } },
        { id: 'call_p0w4z8d1', name: 'get_conditions', arguments: { city: 'New York' } },
      ],
      finishReason: 'tool-calls',
    },
  ],
};

/** OpenAI's error bodies, with the parameter paths of the Responses API. */
const openaiErrors = openai.errors;

const openaiResponses: WireExpectations = {
  toolNames: (body) => (body.tools ?? []).map((tool: any) => tool.name),
  toolSchema: (body, name) =>
    (body.tools ?? []).find((tool: any) => tool.name === name)?.parameters,
  assertToolChoice(body, choice) {
    expect(body.tools?.length ?? 0, 'tools stay declared whatever the tool choice').toBeGreaterThan(
      0,
    );
    if (typeof choice === 'object')
      expect(body.tool_choice).toEqual({ type: 'function', name: choice.toolName });
    else expect(body.tool_choice).toBe(choice);
  },
  assertParallelToolCalls(body, parallel) {
    expect(body.parallel_tool_calls).toBe(parallel);
  },
  enforcesToolChoice: true,
  assertStreamRequest(body) {
    expect(body.stream).toBe(true);
  },
  assertSystemPrompt(body, text) {
    if (body.instructions !== undefined) expect(body.instructions).toBe(text);
    else
      expect(body.input[0]).toMatchObject({
        role: expect.stringMatching(/^(system|developer)$/),
        content: text,
      });
  },
  assertContinuation(body, expected) {
    const items: any[] = body.input;
    const first = items.findIndex((item) => item.type === 'function_call');
    expect(first, 'the function_call items are resent').toBeGreaterThanOrEqual(0);
    const assistantText = items
      .slice(0, first)
      .filter((item) => item.role === 'assistant')
      .map((item) => textOfContent(item.content))
      .join('');
    expect(assistantText).toBe(expected.assistantText);
    const calls = items.filter((item) => item.type === 'function_call');
    expect(calls.map((call) => ({ call_id: call.call_id, name: call.name }))).toEqual(
      expected.calls.map((call) => ({ call_id: call.id, name: call.name })),
    );
    calls.forEach((call, i) => {
      expect(typeof call.arguments, 'Responses arguments are a JSON string').toBe('string');
      expect(JSON.parse(call.arguments)).toEqual(expected.calls[i]!.arguments);
    });
    const outputs = items.filter((item) => item.type === 'function_call_output');
    expect(items.indexOf(outputs[0])).toBeGreaterThan(items.indexOf(calls.at(-1)));
    expected.results.forEach((result, i) => {
      expect(outputs[i], `a function_call_output for ${result.toolCallId}`).toMatchObject({
        call_id: result.toolCallId,
      });
      expect(textOfContent(outputs[i].output)).toContain(result.text);
    });
  },
  assertImageResult(body, image, warnings) {
    const output = body.input.find((item: any) => item.type === 'function_call_output')?.output;
    expect(output).toContainEqual(
      expect.objectContaining({
        type: 'input_image',
        image_url: `data:${image.mediaType};base64,${image.data}`,
      }),
    );
    expect(warnings.map((warning) => warning.type)).not.toContain('image-as-text');
  },
  assertStructuredOutputRequest(body, schemaName) {
    expect(body.text?.format).toMatchObject({ type: 'json_schema', name: schemaName });
  },
  structuredOutputTurn: (_body, value) => ({ text: JSON.stringify(value) }),
  reportsCachedTokens: true,
  reportsReasoningTokens: true,
  errors: {
    ...openaiErrors,
    schemaRejected: {
      status: 400,
      body: {
        error: {
          message:
            "Invalid schema for function 'get_weather': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'city'.",
          type: 'invalid_request_error',
          param: 'tools[0].parameters',
          code: 'invalid_function_parameters',
        },
      },
      toolName: 'get_weather',
    },
    streamErrorEvent: {
      contentType: 'text/event-stream',
      body:
        'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_x","object":"response","status":"in_progress","model":"m","output":[]}}\n\n' +
        'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_x","output_index":0,"content_index":0,"delta":"Hel"}\n\n' +
        'event: error\ndata: {"type":"error","sequence_number":2,"code":"server_error","message":"The server had an error while processing your request. Sorry about that!","param":null}\n\n',
      mentions: 'The server had an error while processing your request',
    },
  },
  fixtures: [
    {
      fixture: 'openai-responses-tools.json',
      stream: false,
      text: '',
      calls: [
        { id: 'call_12345xyz', name: 'get_weather', arguments: { location: 'Paris, France' } },
        { id: 'call_67890abc', name: 'get_weather', arguments: { location: 'Bogotá, Colombia' } },
      ],
      finishReason: 'tool-calls',
      usage: {
        inputTokens: 291,
        outputTokens: 118,
        totalTokens: 409,
        cachedInputTokens: 0,
        reasoningTokens: 64,
      },
    },
    {
      fixture: 'openai-responses-tools-stream.sse',
      stream: true,
      text: '',
      calls: [
        { id: 'call_1234xyz', name: 'get_weather', arguments: { location: 'Paris, France' } },
      ],
      finishReason: 'tool-calls',
      usage: { inputTokens: 57, outputTokens: 17, totalTokens: 74 },
    },
  ],
  callsWithoutIds: json({
    id: 'resp_x',
    object: 'response',
    status: 'completed',
    model: 'm',
    output: [
      { type: 'function_call', id: 'fc_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      {
        type: 'function_call',
        id: 'fc_2',
        call_id: '',
        name: 'get_time',
        arguments: '{"timezone":"UTC"}',
      },
    ],
    usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
  }),
};

/** Gemini's OpenAPI `Type` enum is upper case (`OBJECT`); JSON Schema's is lower case. */
function lowerCaseTypes(schema: any): any {
  if (Array.isArray(schema)) return schema.map(lowerCaseTypes);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === 'type' && typeof value === 'string' ? value.toLowerCase() : lowerCaseTypes(value),
    ]),
  );
}

function geminiResponseText(part: any): string {
  const response = part?.functionResponse?.response ?? {};
  const value = response.output ?? response.error ?? response;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const google: WireExpectations = {
  toolNames: (body) =>
    (body.tools ?? [])
      .flatMap((tool: any) => tool.functionDeclarations ?? [])
      .map((declaration: any) => declaration.name),
  toolSchema: (body, name) => {
    const declaration = (body.tools ?? [])
      .flatMap((tool: any) => tool.functionDeclarations ?? [])
      .find((entry: any) => entry.name === name);
    return lowerCaseTypes(declaration?.parametersJsonSchema ?? declaration?.parameters);
  },
  assertToolChoice(body, choice) {
    expect(body.tools?.length ?? 0, 'tools stay declared whatever the tool choice').toBeGreaterThan(
      0,
    );
    const config = body.toolConfig?.functionCallingConfig;
    if (choice === 'auto') expect(config?.mode ?? 'AUTO').toBe('AUTO');
    else if (choice === 'none') expect(config).toMatchObject({ mode: 'NONE' });
    else if (choice === 'required') expect(config).toMatchObject({ mode: 'ANY' });
    else expect(config).toEqual({ mode: 'ANY', allowedFunctionNames: [choice.toolName] });
  },
  assertParallelToolCalls(body) {
    expect(
      JSON.stringify(body).includes('parallel'),
      'Gemini has no parallel switch; it is checked after the fact',
    ).toBe(false);
  },
  enforcesToolChoice: true,
  enforcesParallelToolCalls: false,
  assertStreamRequest(_body, path) {
    expect(path).toMatch(/:streamGenerateContent$/);
  },
  assertSystemPrompt(body, text) {
    expect(textOfContent(body.systemInstruction?.parts)).toBe(text);
    expect(body.contents.some((content: any) => content.role === 'system')).toBe(false);
  },
  assertContinuation(body, expected) {
    const contents: any[] = body.contents;
    const at = contents.findIndex(
      (content) => content.role === 'model' && content.parts.some((part: any) => part.functionCall),
    );
    expect(at, 'the model turn with functionCall parts is resent').toBeGreaterThanOrEqual(0);
    const parts: any[] = contents[at].parts;
    expect(
      parts
        .filter((part) => typeof part.text === 'string' && !part.thought)
        .map((part) => part.text)
        .join(''),
    ).toBe(expected.assistantText);
    expect(
      parts
        .filter((part) => part.functionCall)
        .map((part) => ({
          id: part.functionCall.id,
          name: part.functionCall.name,
          args: part.functionCall.args,
        })),
    ).toEqual(
      expected.calls.map((call) => ({ id: call.id, name: call.name, args: call.arguments })),
    );
    const next = contents[at + 1];
    expect(next.role, 'one user turn follows with the function responses').toBe('user');
    const responses = next.parts.filter((part: any) => part.functionResponse);
    expected.results.forEach((result, i) => {
      expect(responses[i], `functionResponse ${i} answers ${result.toolCallId}`).toMatchObject({
        functionResponse: { id: result.toolCallId, name: result.toolName },
      });
      expect(geminiResponseText(responses[i])).toContain(result.text);
      const response = responses[i].functionResponse.response;
      if (result.isError) expect(response).toHaveProperty('error');
      else expect(response).toHaveProperty('output');
    });
  },
  assertImageResult(body, image) {
    const parts = body.contents.flatMap((content: any) => content.parts ?? []);
    expect(parts).toContainEqual(
      expect.objectContaining({ inlineData: { mimeType: image.mediaType, data: image.data } }),
    );
  },
  assertStructuredOutputRequest(body) {
    expect(body.generationConfig).toMatchObject({ responseMimeType: 'application/json' });
    expect(
      body.generationConfig.responseJsonSchema ?? body.generationConfig.responseSchema,
    ).toMatchObject({ type: expect.stringMatching(/^object$/i) });
  },
  structuredOutputTurn: (_body, value) => ({ text: JSON.stringify(value) }),
  reportsCachedTokens: true,
  reportsReasoningTokens: true,
  errors: {
    unauthorized: {
      status: 401,
      body: {
        error: {
          code: 401,
          message:
            'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
          status: 'UNAUTHENTICATED',
        },
      },
    },
    contextOverflow: {
      status: 400,
      body: {
        error: {
          code: 400,
          message:
            'The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).',
          status: 'INVALID_ARGUMENT',
        },
      },
    },
    schemaRejected: {
      status: 400,
      body: {
        error: {
          code: 400,
          message:
            'Invalid JSON payload received. Unknown name "additionalProperties" at \'tools[0].function_declarations[0].parameters\': Cannot find field.',
          status: 'INVALID_ARGUMENT',
        },
      },
      toolName: 'get_weather',
    },
    overloaded: {
      status: 503,
      body: {
        error: {
          code: 503,
          message: 'The model is overloaded. Please try again later.',
          status: 'UNAVAILABLE',
        },
      },
    },
    streamErrorEvent: {
      contentType: 'text/event-stream',
      body:
        'data: {"candidates":[{"content":{"parts":[{"text":"Hel"}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-flash"}\r\n\r\n' +
        'data: {"error":{"code":500,"message":"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting","status":"INTERNAL"}}\r\n\r\n',
      mentions: 'An internal error has occurred',
    },
  },
  fixtures: [
    {
      fixture: 'google-generate-content-tools.json',
      stream: false,
      text: '',
      calls: [
        { name: 'power_disco_ball', arguments: { power: true } },
        { name: 'start_music', arguments: { energetic: true, loud: true } },
        { name: 'dim_lights', arguments: { brightness: 0.5 } },
      ],
      finishReason: 'tool-calls',
      usage: { inputTokens: 221, outputTokens: 170, totalTokens: 391, reasoningTokens: 122 },
    },
    {
      fixture: 'google-generate-content-tools-stream.sse',
      stream: true,
      text: '',
      calls: [{ name: 'get_current_temperature', arguments: { location: 'London' } }],
      finishReason: 'tool-calls',
      usage: { inputTokens: 93, outputTokens: 18, totalTokens: 111 },
    },
  ],
  callsWithoutIds: json({
    candidates: [
      {
        content: {
          role: 'model',
          parts: [
            { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
            { functionCall: { name: 'get_time', args: { timezone: 'UTC' } } },
          ],
        },
        finishReason: 'STOP',
        index: 0,
      },
    ],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
  }),
};

export const WIRE_EXPECTATIONS: Record<FakeProviderKind, WireExpectations> = {
  openai,
  'openai-responses': openaiResponses,
  anthropic,
  ollama,
  google,
};
