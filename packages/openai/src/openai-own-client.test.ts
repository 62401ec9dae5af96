import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { createOpenAI } from './index.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ provider: 'openai' });
});
afterAll(async () => {
  await fake.close();
});

describe('createOpenAI', () => {
  it('sends requests through the SDK client it is given', async () => {
    fake.push({ text: 'Hello.' });
    const client = new OpenAI({
      apiKey: 'key',
      baseURL: `${fake.url}/v1`,
      defaultHeaders: { 'x-own-client': 'yes' },
    });
    const model = createOpenAI({ client })('gpt-5-mini');
    const response = await model.generate({
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(response.text).toBe('Hello.');
    expect(fake.requests.at(-1)!.headers['x-own-client']).toBe('yes');
  });

  it('passes the browser opt-in to the SDK', async () => {
    // What the SDK looks at to decide it runs in a browser.
    const globals = globalThis as Record<string, unknown>;
    globals.window = { document: {} };
    globals.document = {};
    const navigator = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
    Object.defineProperty(globalThis, 'navigator', {
      value: { userAgent: 'Chromium' },
      configurable: true,
    });
    try {
      await expect(
        (async () =>
          createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'key' })('gpt-5-mini').generate({
            messages: [{ role: 'user', content: 'Hi' }],
          }))(),
      ).rejects.toThrow(/browser/);
      fake.push({ text: 'Hello from a page.' });
      const response = await createOpenAI({
        baseURL: `${fake.url}/v1`,
        apiKey: 'key',
        dangerouslyAllowBrowser: true,
      })('gpt-5-mini').generate({ messages: [{ role: 'user', content: 'Hi' }] });
      expect(response.text).toBe('Hello from a page.');
    } finally {
      delete globals.window;
      delete globals.document;
      if (navigator) Object.defineProperty(globalThis, 'navigator', navigator);
    }
  });
});
