import { describe, expect, it } from 'vitest';
import {
  collectStream,
  type ChatRequest,
  type ChatResponse,
  type ChatStreamPart,
} from './chat-model.js';
import { ClientToolSearch, CLIENT_TOOL_SEARCH_KEY } from './client-tool-search.js';
import type { ToolSpec } from './define-tool.js';
import type { AssistantMessage, Message } from './message.js';
import type { ToolCall } from './tool-call.js';
import { textResult } from './tool-result.js';

const visible: ToolSpec = {
  name: 'get_time',
  description: 'Current time in a time zone',
  inputSchema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
};
const catalog: ToolSpec[] = [
  {
    name: 'get_weather',
    description: 'Current weather for a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    inputExamples: [{ city: 'Paris' }],
    deferred: true,
  },
  {
    name: 'send_email',
    description: 'Send an email to someone',
    inputSchema: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
    deferred: true,
  },
];
const tools = [visible, ...catalog];
const user: Message = { role: 'user', content: 'Weather in Paris?' };

function answer(text: string, toolCalls: ToolCall[] = []): ChatResponse {
  return {
    text,
    toolCalls,
    finishReason: toolCalls.length > 0 ? 'tool-calls' : 'stop',
    usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110 },
    warnings: [],
    modelId: 'm',
  };
}

/** A provider that answers from a script and records what it was sent. */
function scripted(turns: ChatResponse[]) {
  const sent: ChatRequest[] = [];
  return {
    sent,
    generate: async (request: ChatRequest) => {
      sent.push(request);
      const next = turns.shift();
      if (!next) throw new Error('no turn left');
      return next;
    },
    stream: async function* (request: ChatRequest): AsyncGenerator<ChatStreamPart> {
      sent.push(request);
      const next = turns.shift();
      if (!next) throw new Error('no turn left');
      if (next.text) yield { type: 'text-delta', delta: next.text };
      for (const [index, call] of next.toolCalls.entries()) {
        yield { type: 'tool-call-start', id: call.id, name: call.name, index };
        yield { type: 'tool-call', toolCall: call };
      }
      yield { type: 'finish', response: next };
    },
  };
}

const searchTurn = () =>
  answer('Let me look.', [{ id: 's1', name: 'search_tools', arguments: '{"query":"weather"}' }]);
const callTurn = () =>
  answer('', [
    {
      id: 'c1',
      name: 'call_tool',
      arguments: '{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}',
    },
  ]);

describe('ClientToolSearch', () => {
  it('passes a request without deferred tools through untouched', async () => {
    const provider = scripted([answer('hi')]);
    const request: ChatRequest = { messages: [user], tools: [visible] };
    await new ClientToolSearch(request).generate(provider.generate);
    expect(provider.sent[0]).toBe(request);
  });

  it('offers search_tools and call_tool instead of the deferred tools, answers searches itself and returns the real call', async () => {
    const provider = scripted([searchTurn(), callTurn()]);
    const response = await new ClientToolSearch({ messages: [user], tools }).generate(
      provider.generate,
    );
    expect(provider.sent).toHaveLength(2);
    expect(provider.sent[0]!.tools!.map((tool) => tool.name)).toEqual([
      'get_time',
      'search_tools',
      'call_tool',
    ]);
    expect(provider.sent[0]!.tools![1]!.description).toContain('2 more tools');
    const searchResult = provider.sent[1]!.messages.at(-1)!;
    expect(searchResult).toMatchObject({ role: 'tool', results: [{ toolCallId: 's1' }] });
    const found = JSON.parse(
      (searchResult as { results: Array<{ content: Array<{ text: string }> }> }).results[0]!
        .content[0]!.text,
    );
    expect(found.tools[0]).toEqual({
      name: 'get_weather',
      description: 'Current weather for a city\n\nExample inputs:\n{"city":"Paris"}',
      inputSchema: catalog[0]!.inputSchema,
    });
    expect(response.toolCalls).toEqual([
      { id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    ]);
    expect(response.text).toBe('Let me look.');
    expect(response.usage).toEqual({ inputTokens: 200, outputTokens: 20, totalTokens: 220 });
    expect(response.providerToolCalls).toEqual([
      expect.objectContaining({ id: 's1', name: 'search_tools', result: expect.anything() }),
    ]);
  });

  it('keeps the prompt prefix byte-stable: the next turn starts with exactly what was sent before', async () => {
    const provider = scripted([searchTurn(), callTurn(), answer('Sunny.')]);
    const first = await new ClientToolSearch({ messages: [user], tools }).generate(
      provider.generate,
    );
    const assistant: AssistantMessage = {
      role: 'assistant',
      content: first.text,
      toolCalls: first.toolCalls,
      providerMetadata: first.providerMetadata!,
    };
    // What a caller keeps: JSON (the agent's resumable state is JSON too).
    const history: Message[] = JSON.parse(
      JSON.stringify([
        user,
        assistant,
        { role: 'tool', results: [textResult('c1', 'get_weather', 'sunny')] },
      ]),
    );
    await new ClientToolSearch({ messages: history, tools }).generate(provider.generate);
    const before = provider.sent[1]!;
    const after = provider.sent[2]!;
    expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools));
    const prefix = after.messages.slice(0, before.messages.length);
    expect(JSON.stringify(prefix)).toBe(JSON.stringify(before.messages));
    expect(after.messages[before.messages.length]).toEqual({
      role: 'assistant',
      content: '',
      toolCalls: [
        {
          id: 'c1',
          name: 'call_tool',
          arguments: '{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}',
        },
      ],
    });
    expect(after.messages.at(-1)).toMatchObject({
      role: 'tool',
      results: [{ toolCallId: 'c1', toolName: 'call_tool' }],
    });
    expect(
      after.messages.some(
        (message) =>
          message.role === 'assistant' && message.providerMetadata?.[CLIENT_TOOL_SEARCH_KEY],
      ),
    ).toBe(false);
  });

  it('answers a search made beside a real call, and replays both', async () => {
    const provider = scripted([
      answer('', [
        { id: 's2', name: 'search_tools', arguments: { query: 'email' } },
        { id: 't1', name: 'get_time', arguments: { zone: 'UTC' } },
      ]),
      answer('done'),
    ]);
    const response = await new ClientToolSearch({ messages: [user], tools }).generate(
      provider.generate,
    );
    expect(response.toolCalls.map((call) => call.name)).toEqual(['get_time']);
    const history: Message[] = [
      user,
      {
        role: 'assistant',
        content: '',
        toolCalls: response.toolCalls,
        providerMetadata: response.providerMetadata!,
      },
      { role: 'tool', results: [textResult('t1', 'get_time', '12:00')] },
    ];
    await new ClientToolSearch({ messages: history, tools }).generate(provider.generate);
    const sent = provider.sent[1]!.messages;
    expect(sent[1]).toMatchObject({
      toolCalls: [{ id: 't1' }, { id: 's2', name: 'search_tools' }],
    });
    expect(sent[2]).toMatchObject({
      role: 'tool',
      results: [{ toolCallId: 't1' }, { toolCallId: 's2', toolName: 'search_tools' }],
    });
  });

  it('streams the same response as generate, with the search as a provider tool call', async () => {
    const streamed = scripted([searchTurn(), callTurn()]);
    const parts: ChatStreamPart[] = [];
    const emulation = new ClientToolSearch({ messages: [user], tools });
    for await (const part of emulation.stream(streamed.stream)) parts.push(part);
    const generated = await new ClientToolSearch({ messages: [user], tools }).generate(
      scripted([searchTurn(), callTurn()]).generate,
    );
    const response = await collectStream(
      (async function* () {
        yield* parts;
      })(),
    );
    expect(response).toEqual(generated);
    expect(parts.map((part) => part.type)).toEqual([
      'text-delta',
      'provider-tool-call',
      'tool-call-start',
      'tool-call',
      'finish',
    ]);
    expect(parts[2]).toMatchObject({ name: 'get_weather', id: 'c1' });
  });

  it('maps a tool choice naming a deferred tool to call_tool, and an allowed set to the search pair', async () => {
    const provider = scripted([answer('a'), answer('b')]);
    await new ClientToolSearch({
      messages: [user],
      tools,
      toolChoice: { type: 'tool', toolName: 'send_email' },
    }).generate(provider.generate);
    await new ClientToolSearch({
      messages: [user],
      tools,
      toolChoice: { type: 'allowed', toolNames: ['get_time', 'get_weather'] },
    }).generate(provider.generate);
    expect(provider.sent[0]!.toolChoice).toEqual({ type: 'tool', toolName: 'call_tool' });
    expect(provider.sent[1]!.toolChoice).toEqual({
      type: 'allowed',
      toolNames: ['get_time', 'search_tools', 'call_tool'],
    });
  });

  it('refuses a tool named like one of its own', () => {
    expect(
      () =>
        new ClientToolSearch({
          messages: [user],
          tools: [...tools, { ...visible, name: 'call_tool' }],
        }),
    ).toThrow(expect.objectContaining({ name: 'UsageError', code: 'usage' }));
  });
});
