import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ollama } from 'ollama/browser';
import { createOllama } from './index.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ provider: 'ollama' });
});
afterAll(async () => {
  await fake.close();
});

describe('createOllama', () => {
  it('sends requests through the SDK client it is given', async () => {
    fake.push({ text: 'Hello.' });
    const client = new Ollama({ host: fake.url, headers: { 'x-own-client': 'yes' } });
    const model = createOllama({ client })('llama3.2');
    const response = await model.generate({
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(response.text).toBe('Hello.');
    expect(fake.requests.at(-1)!.headers['x-own-client']).toBe('yes');
  });
});
