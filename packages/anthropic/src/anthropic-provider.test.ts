import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { createAnthropic } from './index.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ provider: 'anthropic' });
});
afterAll(async () => {
  await fake.close();
});

describe('createAnthropic', () => {
  it('sends requests through the SDK client it is given', async () => {
    fake.push({ text: 'Hello.' });
    const client = new Anthropic({
      apiKey: 'key',
      baseURL: fake.url,
      defaultHeaders: { 'x-own-client': 'yes' },
    });
    const model = createAnthropic({ client })('claude-sonnet-4-6');
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
          createAnthropic({ baseURL: fake.url, apiKey: 'key' })('claude-sonnet-4-6').generate({
            messages: [{ role: 'user', content: 'Hi' }],
          }))(),
      ).rejects.toThrow(/browser/);
      fake.push({ text: 'Hello from a page.' });
      const response = await createAnthropic({
        baseURL: fake.url,
        apiKey: 'key',
        dangerouslyAllowBrowser: true,
      })('claude-sonnet-4-6').generate({ messages: [{ role: 'user', content: 'Hi' }] });
      expect(response.text).toBe('Hello from a page.');
    } finally {
      delete globals.window;
      delete globals.document;
      if (navigator) Object.defineProperty(globalThis, 'navigator', navigator);
    }
  });
});
