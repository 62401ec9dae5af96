import { describe, expect, it } from 'vitest';
import { parseChatRequest } from './chat-completions.js';

describe('parseChatRequest', () => {
  it('turns OpenAI messages into a system prompt and a conversation', () => {
    const parsed = parseChatRequest({
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

  it('names the field that is wrong', () => {
    expect(() => parseChatRequest({ messages: [] })).toThrow(/^messages:/);
    expect(() => parseChatRequest({ messages: [{ role: 'robot', content: 'x' }] })).toThrow(
      /messages\[0\]\.role/,
    );
    expect(() =>
      parseChatRequest({ messages: [{ role: 'user', content: [{ type: 'image_url' }] }] }),
    ).toThrow(/messages\[0\]\.content\[0\]/);
    expect(() => parseChatRequest({ messages: [{ role: 'tool', content: 'x' }] })).toThrow(
      /role "tool"/,
    );
    expect(() =>
      parseChatRequest({ messages: [{ role: 'user', content: 'x' }], temperature: 'hot' }),
    ).toThrow(/temperature/);
    expect(() =>
      parseChatRequest({
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'function' }],
      }),
    ).toThrow(/^tools:/);
  });
});
