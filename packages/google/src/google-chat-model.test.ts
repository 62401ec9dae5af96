import { collectStream, textResult, type Message, type ToolSpec } from '@toolwire/schema';
import { startFakeProvider, wireFixture, type FakeProvider } from '@toolwire/testing/providers';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGoogle, type GoogleModelSettings } from './index.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ provider: 'google' });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
});

const model = (settings: GoogleModelSettings = {}) =>
  createGoogle({ apiKey: 'gemini-test', baseURL: fake.url })('gemini-2.5-flash', settings);

const weather: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const USER: Message = { role: 'user', content: 'Weather in Paris and Oslo?' };

const contents = () => fake.requests.at(-1)!.body.contents as unknown[];

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('GoogleChatModel', () => {
  for (const mode of ['generate', 'stream'] as const) {
    it(`sends thought signatures back on the parts they came with; made-up ids stay home (${mode})`, async () => {
      const gemini = model({ thinking: { includeThoughts: true } });
      fake.push(
        {
          reasoning: 'Two cities, two calls.',
          toolCalls: [
            { name: 'get_weather', arguments: { city: 'Paris' } },
            { name: 'get_weather', arguments: { city: 'Oslo' } },
          ],
        },
        { text: 'Both sunny.' },
      );
      const request = { messages: [USER], tools: [weather] };
      const first =
        mode === 'generate'
          ? await gemini.generate(request)
          : await collectStream(gemini.stream(request));
      expect(fake.requests.at(-1)!.path).toBe(
        mode === 'generate'
          ? '/v1/models/gemini-2.5-flash:generateContent'
          : '/v1/models/gemini-2.5-flash:streamGenerateContent',
      );
      expect(fake.requests.at(-1)!.body.generationConfig.thinkingConfig).toEqual({
        includeThoughts: true,
      });
      expect(first.reasoning?.[0]?.text).toBe('Two cities, two calls.');
      expect(first.toolCalls).toHaveLength(2);
      const [paris, oslo] = first.toolCalls;
      expect(paris!.id).not.toBe(oslo!.id);
      await gemini.generate({
        messages: [
          USER,
          {
            role: 'assistant',
            content: first.text,
            toolCalls: first.toolCalls,
            reasoning: first.reasoning,
          },
          {
            role: 'tool',
            results: [
              textResult(paris!.id, 'get_weather', 'sunny'),
              textResult(oslo!.id, 'get_weather', 'sunny too'),
            ],
          },
        ],
        tools: [weather],
      });
      expect(contents().slice(1)).toEqual([
        {
          role: 'model',
          parts: [
            {
              functionCall: { name: 'get_weather', args: { city: 'Paris' } },
              thoughtSignature: 'ZmFrZS10aG91Z2h0LXNpZ25hdHVyZQ==',
            },
            { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'get_weather', response: { output: 'sunny' } } },
            { functionResponse: { name: 'get_weather', response: { output: 'sunny too' } } },
          ],
        },
      ]);
    });
  }

  it('keeps the signature of an answer without calls for the next turn', async () => {
    fake.push({ reasoning: 'Easy.', text: 'Hello!' }, { text: 'Again.' });
    const first = await model().generate({ messages: [USER] });
    expect(first.providerMetadata).toEqual({
      google: { thoughtSignature: 'ZmFrZS10aG91Z2h0LXNpZ25hdHVyZQ==' },
    });
    await model().generate({
      messages: [
        USER,
        { role: 'assistant', content: first.text, providerMetadata: first.providerMetadata },
        { role: 'user', content: 'again' },
      ],
    });
    expect(contents()[1]).toEqual({
      role: 'model',
      parts: [{ text: 'Hello!', thoughtSignature: 'ZmFrZS10aG91Z2h0LXNpZ25hdHVyZQ==' }],
    });
  });

  it('sends VALIDATED instead of AUTO when asked', async () => {
    fake.push({ text: 'ok' });
    await model({ validatedFunctionCalls: true }).generate({ messages: [USER], tools: [weather] });
    expect(fake.lastBody().toolConfig).toEqual({ functionCallingConfig: { mode: 'VALIDATED' } });
  });

  it('reads the retry delay of a 429 from RetryInfo', async () => {
    fake.push({
      error: {
        status: 429,
        body: {
          error: {
            code: 429,
            message: 'You exceeded your current quota, please check your plan and billing details.',
            status: 'RESOURCE_EXHAUSTED',
            details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }],
          },
        },
      },
    });
    expect(await failure(() => model().generate({ messages: [USER] }))).toMatchObject({
      name: 'RateLimitError',
      retryAfterMs: 7000,
      message: expect.stringContaining('You exceeded your current quota'),
    });
  });

  it('maps an invalid API key (a 400 on the Gemini API) to AuthenticationError', async () => {
    fake.push({
      error: {
        status: 400,
        body: {
          error: {
            code: 400,
            message: 'API key not valid. Please pass a valid API key.',
            status: 'INVALID_ARGUMENT',
            details: [
              { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' },
            ],
          },
        },
      },
    });
    expect(await failure(() => model().generate({ messages: [USER] }))).toMatchObject({
      name: 'AuthenticationError',
      statusCode: 400,
    });
  });

  it('raises UnsupportedFeatureError when the model has no function calling (Gemma on the Gemini API)', async () => {
    const refusal = {
      error: {
        status: 400,
        body: {
          error: {
            code: 400,
            message: 'Function calling is not enabled for models/gemma-3-27b-it',
            status: 'INVALID_ARGUMENT',
          },
        },
      },
    };
    fake.push(refusal, refusal);
    const gemma = createGoogle({ apiKey: 'k', baseURL: fake.url })('gemma-3-27b-it');
    for (const run of [
      () => gemma.generate({ messages: [USER], tools: [weather] }),
      () => collectStream(gemma.stream({ messages: [USER], tools: [weather] })),
    ]) {
      expect(await failure(run)).toMatchObject({
        name: 'UnsupportedFeatureError',
        feature: 'toolCalling',
        modelId: 'gemma-3-27b-it',
      });
    }
  });

  it('reads the thought signature and thought token count of a recorded answer', async () => {
    fake.push({ raw: wireFixture('google-generate-content-tools.json') });
    const response = await model().generate({ messages: [USER] });
    expect(response.toolCalls[0]!.providerMetadata).toEqual({
      google: {
        thoughtSignature: 'CiIBVKhc7oDPtb8YWnc4Mq2TfK3YMgF3WRXdTJazplE/8ZA0',
        generatedId: true,
      },
    });
    expect(response.usage).toMatchObject({ outputTokens: 170, reasoningTokens: 122 });
  });

  it('asks for a key when none is given', () => {
    const saved = { gemini: process.env.GEMINI_API_KEY, google: process.env.GOOGLE_API_KEY };
    delete process.env.GEMINI_API_KEY;
    delete process.env.GOOGLE_API_KEY;
    try {
      expect(() => createGoogle()).toThrow(/GEMINI_API_KEY/);
    } finally {
      if (saved.gemini !== undefined) process.env.GEMINI_API_KEY = saved.gemini;
      if (saved.google !== undefined) process.env.GOOGLE_API_KEY = saved.google;
    }
  });
});
