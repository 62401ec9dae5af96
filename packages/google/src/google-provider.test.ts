import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GoogleGenAI } from '@google/genai';
import { createGoogle } from './index.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ provider: 'google' });
});
afterAll(async () => {
  await fake.close();
});

describe('createGoogle', () => {
  it('sends requests through the SDK client it is given', async () => {
    fake.push({ text: 'Hello.' });
    const client = new GoogleGenAI({
      apiKey: 'key',
      httpOptions: { baseUrl: fake.url, headers: { 'x-own-client': 'yes' } },
    });
    const model = createGoogle({ client })('gemini-2.5-flash');
    const response = await model.generate({
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(response.text).toBe('Hello.');
    expect(fake.requests.at(-1)!.headers['x-own-client']).toBe('yes');
  });
});
