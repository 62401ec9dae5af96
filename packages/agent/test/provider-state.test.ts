// What providers need back verbatim survives the agent's tool loop: OpenAI Responses reasoning
// items (encrypted with store: false) and Gemini thought signatures, through the real SDKs.
import { createGoogle } from '@toolwire/google';
import { createOpenAI } from '@toolwire/openai';
import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { weather } from './test-tools.js';

let fake: FakeProvider | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const turns = [
  {
    reasoning: 'Paris weather needs the tool.',
    toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: { city: 'Paris' } }],
  },
  { text: 'Sunny in Paris.' },
];

describe('createAgent keeps provider state between steps', () => {
  it('replays Responses reasoning items with their encrypted content', async () => {
    fake = await startFakeProvider({ provider: 'openai-responses', turns });
    const model = createOpenAI({
      baseURL: `${fake.url}/v1`,
      apiKey: 'k',
      provider: 'openai',
    }).responses('gpt-5-test', { store: false });
    const result = await createAgent({ model, tools: [weather] }).run('Weather in Paris?');
    expect(result.text).toBe('Sunny in Paris.');
    const input = fake.requests[1]!.body.input as Array<Record<string, unknown>>;
    const reasoning = input.findIndex((item) => item.type === 'reasoning');
    const call = input.findIndex((item) => item.type === 'function_call');
    expect(input[reasoning]).toMatchObject({
      summary: [{ type: 'summary_text', text: 'Paris weather needs the tool.' }],
      encrypted_content: expect.stringMatching(/^gAAAA/),
    });
    expect(reasoning).toBeLessThan(call);
    expect(input[call]).toMatchObject({ call_id: 'call_w', name: 'get_weather' });
  });

  it('sends Gemini thought signatures back on the calls they came with', async () => {
    fake = await startFakeProvider({ provider: 'google', turns });
    const model = createGoogle({ apiKey: 'k', baseURL: fake.url })('gemini-test');
    const result = await createAgent({ model, tools: [weather] }).run('Weather in Paris?');
    expect(result.text).toBe('Sunny in Paris.');
    const contents = fake.requests[1]!.body.contents as Array<{ role: string; parts: unknown[] }>;
    expect(contents[1]).toEqual({
      role: 'model',
      parts: [
        {
          functionCall: { id: 'call_w', name: 'get_weather', args: { city: 'Paris' } },
          thoughtSignature: expect.any(String),
        },
      ],
    });
    expect(contents[2]!.parts[0]).toMatchObject({
      functionResponse: {
        id: 'call_w',
        name: 'get_weather',
        response: { output: expect.stringContaining('Sunny') },
      },
    });
  });
});
