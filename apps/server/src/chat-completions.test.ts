import { describe, expect, it } from 'vitest';
import { parseChatRequest } from './chat-completions.js';

describe('parseChatRequest', () => {
  it('turns OpenAI messages into a system prompt and a conversation', async () => {
    const parsed = await parseChatRequest({
      model: 'm',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 100,
      messages: [
        { role: 'system', content: 'A' },
        { role: 'developer', content: [{ type: 'text', text: 'B' }] },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            { type: 'text', text: 'y' },
          ],
        },
      ],
    });
    expect(parsed).toMatchObject({
      model: 'm',
      system: 'A\n\nB',
      stream: true,
      includeUsage: true,
      maxOutputTokens: 100,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'x\ny' },
      ],
    });
  });

  it('reads tool calls and their results, in the order the providers need', async () => {
    const parsed = await parseChatRequest({
      messages: [
        { role: 'user', content: 'weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'a',
              type: 'function',
              function: { name: 'weather', arguments: '{"city":"Paris"}' },
            },
            {
              id: 'b',
              type: 'function',
              function: { name: 'weather', arguments: '{"city":"Rome"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'b', content: 'rain' },
        { role: 'tool', tool_call_id: 'a', content: [{ type: 'text', text: 'sun' }] },
      ],
      tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }],
    });
    expect(parsed.clientTools.map((tool) => tool.name)).toEqual(['weather']);
    expect(parsed.messages).toEqual([
      { role: 'user', content: 'weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'a', name: 'weather', arguments: '{"city":"Paris"}' },
          { id: 'b', name: 'weather', arguments: '{"city":"Rome"}' },
        ],
      },
      {
        role: 'tool',
        results: [
          {
            toolCallId: 'a',
            toolName: 'weather',
            content: [{ type: 'text', text: 'sun' }],
            isError: false,
          },
          {
            toolCallId: 'b',
            toolName: 'weather',
            content: [{ type: 'text', text: 'rain' }],
            isError: false,
          },
        ],
      },
    ]);
  });

  it('names the field that is wrong', async () => {
    await expect(parseChatRequest({ messages: [] })).rejects.toThrow(/^messages:/);
    await expect(parseChatRequest({ messages: [{ role: 'robot', content: 'x' }] })).rejects.toThrow(
      /messages\[0\]\.role/,
    );
    await expect(
      parseChatRequest({ messages: [{ role: 'user', content: [{ type: 'image_url' }] }] }),
    ).rejects.toThrow(/messages\[0\]\.content\[0\]/);
    await expect(
      parseChatRequest({ messages: [{ role: 'tool', tool_call_id: 'x', content: 'x' }] }),
    ).rejects.toThrow(/messages\[0\]: no tool call "x" before it/);
    await expect(
      parseChatRequest({
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
        ],
      }),
    ).rejects.toThrow(/messages: the tool call "a" \(f\) has no output/);
    await expect(
      parseChatRequest({ messages: [{ role: 'user', content: 'x' }], temperature: 'hot' }),
    ).rejects.toThrow(/temperature/);
    await expect(
      parseChatRequest({
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'function' }],
      }),
    ).rejects.toThrow(/^tools\[0\]\.function: expected an object/);
    await expect(
      parseChatRequest({
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'web_search' }],
      }),
    ).rejects.toThrow(/^tools\[0\]\.type: "web_search" tools are not offered/);
    await expect(
      parseChatRequest(
        {
          messages: [{ role: 'user', content: 'x' }],
          tools: [{ type: 'function', function: { name: 'calculate' } }],
        },
        { gatewayNames: new Set(['calculate']) },
      ),
    ).rejects.toThrow(/"calculate" is one of the gateway's own tools/);
    await expect(
      parseChatRequest({
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'function', function: { name: 'f' } }],
        tool_choice: { type: 'function', function: { name: 'g' } },
      }),
    ).rejects.toThrow(/tool_choice: no tool named "g"/);
  });
});
