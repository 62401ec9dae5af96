import { collectStream, textResult, type Message, type ToolSpec } from '@toolwire/schema';
import { startFakeProvider, wireFixture, type FakeProvider } from '@toolwire/testing/providers';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAI, type OpenAIResponsesSettings } from './index.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ provider: 'openai-responses' });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
});

const model = (settings: OpenAIResponsesSettings = {}) =>
  createOpenAI({
    baseURL: `${fake.url}/v1`,
    apiKey: 'sk-test',
    provider: 'openai',
    maxRetries: 0,
  }).responses('gpt-5-test', settings);

const weather: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
  },
};
const USER: Message = { role: 'user', content: 'Weather in Paris?' };

describe('OpenAIResponsesModel', () => {
  for (const mode of ['generate', 'stream'] as const) {
    it(`replays reasoning items verbatim, encrypted content included, with store: false (${mode})`, async () => {
      const responses = model({ store: false, reasoning: { effort: 'low', summary: 'auto' } });
      fake.push(
        {
          reasoning: 'The user wants Paris weather.',
          toolCalls: [{ id: 'call_p', name: 'get_weather', arguments: { city: 'Paris' } }],
        },
        { text: 'Sunny.' },
      );
      const request = { messages: [USER], tools: [weather] };
      const first =
        mode === 'generate'
          ? await responses.generate(request)
          : await collectStream(responses.stream(request));
      expect(fake.lastBody()).toMatchObject({
        store: false,
        include: ['reasoning.encrypted_content'],
        reasoning: { effort: 'low', summary: 'auto' },
      });
      expect(first.reasoning).toHaveLength(1);
      expect(first.reasoning![0]!.text).toBe('The user wants Paris weather.');
      const item = (first.reasoning![0]!.providerMetadata!['openai-responses'] as { item: unknown })
        .item;
      expect(item).toEqual({
        id: expect.stringMatching(/^rs_/),
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'The user wants Paris weather.' }],
        encrypted_content: expect.stringMatching(/^gAAAA/),
      });

      await responses.generate({
        messages: [
          USER,
          {
            role: 'assistant',
            content: first.text,
            toolCalls: first.toolCalls,
            reasoning: first.reasoning,
          },
          { role: 'tool', results: [textResult('call_p', 'get_weather', 'sunny')] },
        ],
        tools: [weather],
      });
      const input = fake.lastBody().input as unknown[];
      expect(input).toEqual([
        { role: 'user', content: 'Weather in Paris?' },
        item,
        {
          type: 'function_call',
          call_id: 'call_p',
          name: 'get_weather',
          arguments: '{"city":"Paris"}',
        },
        { type: 'function_call_output', call_id: 'call_p', output: 'sunny' },
      ]);
    });
  }

  it('does not send reasoning that came from another provider', async () => {
    fake.push({ text: 'ok' });
    await model().generate({
      messages: [
        USER,
        {
          role: 'assistant',
          content: 'Hi',
          reasoning: [{ type: 'reasoning', text: 'x', signature: 's' }],
        },
        { role: 'user', content: 'again' },
      ],
    });
    expect(fake.lastBody().input).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: 'Hi' },
      { role: 'user', content: 'again' },
    ]);
  });

  it('sends strict function tools when asked and leaves them non-strict by default', async () => {
    fake.push({ text: 'a' }, { text: 'b' });
    await model().generate({ messages: [USER], tools: [weather] });
    expect((fake.lastBody().tools as unknown[])[0]).toMatchObject({
      type: 'function',
      name: 'get_weather',
      strict: false,
    });
    await model({ strictTools: true }).generate({ messages: [USER], tools: [weather] });
    expect((fake.lastBody().tools as unknown[])[0]).toMatchObject({
      strict: true,
      parameters: { additionalProperties: false, required: ['city'] },
    });
  });

  it('reads the reasoning summary of a recorded answer', async () => {
    fake.push({ raw: wireFixture('openai-responses-tools.json') });
    const response = await model().generate({ messages: [USER] });
    expect(response.reasoning?.[0]?.text).toContain('I will call get_weather for each');
    expect(response.responseId).toBe('resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b');
  });

  it('fails a stream that ends in response.failed with a provider error naming the reason', async () => {
    fake.push({
      raw: {
        contentType: 'text/event-stream',
        body:
          'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_f","status":"in_progress","output":[]}}\n\n' +
          'event: response.failed\ndata: {"type":"response.failed","sequence_number":1,"response":{"id":"resp_f","status":"failed","error":{"code":"server_error","message":"The model failed to generate a response."},"output":[]}}\n\n',
      },
    });
    await expect(collectStream(model().stream({ messages: [USER] }))).rejects.toMatchObject({
      name: 'ServerError',
      message: expect.stringContaining('The model failed to generate a response.'),
    });
  });

  it('warns that stop sequences are not sent', async () => {
    fake.push({ text: 'a' });
    const response = await model().generate({ messages: [USER], stopSequences: ['END'] });
    expect(fake.lastBody().stop).toBeUndefined();
    expect(response.warnings.map((warning) => warning.type)).toContain('unsupported-setting');
  });
});
