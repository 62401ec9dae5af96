import { GoogleChatModel } from '@toolwire/google';
import { OpenAIChatModel, OpenAIResponsesModel } from '@toolwire/openai';
import { describe, expect, it } from 'vitest';
import { chatModelFromConfig } from './chat-model.js';

describe('chatModelFromConfig', () => {
  it('makes a Responses model for openai-responses and a Chat Completions one for openai', () => {
    const chat = { apiKey: 'k', baseUrl: 'http://127.0.0.1:9/v1', model: 'gpt-5' };
    expect(
      chatModelFromConfig({ chat: { ...chat, provider: 'openai-responses' } }, undefined, {}),
    ).toBeInstanceOf(OpenAIResponsesModel);
    expect(
      chatModelFromConfig({ chat: { ...chat, provider: 'openai' } }, undefined, {}),
    ).toBeInstanceOf(OpenAIChatModel);
  });

  it('makes a Gemini model from chat.apiKey, GEMINI_API_KEY or GOOGLE_API_KEY', () => {
    for (const [chat, env] of [
      [{ provider: 'google', apiKey: 'k', model: 'gemini-2.5-flash' }, {}],
      [{ provider: 'google', model: 'gemini-2.5-flash' }, { GEMINI_API_KEY: 'k' }],
      [{ provider: 'google', model: 'gemini-2.5-flash' }, { GOOGLE_API_KEY: 'k' }],
    ] as const) {
      const model = chatModelFromConfig({ chat }, undefined, env);
      expect(model).toBeInstanceOf(GoogleChatModel);
      expect(model).toMatchObject({ provider: 'google', modelId: 'gemini-2.5-flash' });
    }
  });

  it('says to set GEMINI_API_KEY when google has no key', () => {
    expect(() =>
      chatModelFromConfig(
        { chat: { provider: 'google', model: 'gemini-2.5-flash' } },
        undefined,
        {},
      ),
    ).toThrow(
      expect.objectContaining({
        data: expect.objectContaining({ code: 'model_not_configured' }),
        message: expect.stringContaining('GEMINI_API_KEY'),
      }),
    );
  });
});
