import type { ChatModel, ChatRequest } from '@toolwire/schema';
import { describe, expect, it } from 'vitest';
import { createSamplingHandler } from './sampling-handler.js';

function recordingModel(text: string, finishReason: 'stop' | 'length' = 'stop') {
  const requests: ChatRequest[] = [];
  const model: ChatModel = {
    provider: 'test',
    modelId: 'test-model',
    capabilities: {} as ChatModel['capabilities'],
    async generate(request) {
      requests.push(request);
      return {
        text,
        toolCalls: [],
        finishReason,
        usage: { inputTokens: 1, outputTokens: 1 },
      } as never;
    },
    stream: () => {
      throw new Error('not streamed');
    },
  };
  return { model, requests };
}

describe('createSamplingHandler', () => {
  it('answers a sampling request with the model: system prompt, messages, limits kept', async () => {
    const { model, requests } = recordingModel('Paris');
    const handler = createSamplingHandler(model);
    const result = await handler(
      {
        systemPrompt: 'Be brief.',
        maxTokens: 50,
        temperature: 0.2,
        stopSequences: ['\n'],
        messages: [
          { role: 'user', content: { type: 'text', text: 'Capital of France?' } },
          { role: 'assistant', content: { type: 'text', text: 'Let me think.' } },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'And this?' },
              { type: 'image', data: 'AAAA', mimeType: 'image/png' },
              { type: 'audio', data: 'BBBB', mimeType: 'audio/wav' },
            ],
          },
        ],
      },
      { signal: new AbortController().signal },
    );
    expect(result).toEqual({
      role: 'assistant',
      content: { type: 'text', text: 'Paris' },
      model: 'test-model',
      stopReason: 'endTurn',
    });
    expect(requests[0]).toMatchObject({
      maxOutputTokens: 50,
      temperature: 0.2,
      stopSequences: ['\n'],
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] },
        { role: 'assistant', content: 'Let me think.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'And this?' },
            { type: 'image', data: 'AAAA', mediaType: 'image/png' },
            { type: 'text', text: '[audio content left out]' },
          ],
        },
      ],
    });
  });

  it('says a cut answer was cut (maxTokens)', async () => {
    const { model } = recordingModel('Par', 'length');
    const result = await createSamplingHandler(model)(
      { maxTokens: 1, messages: [{ role: 'user', content: { type: 'text', text: 'x' } }] },
      { signal: new AbortController().signal },
    );
    expect(result.stopReason).toBe('maxTokens');
  });
});
