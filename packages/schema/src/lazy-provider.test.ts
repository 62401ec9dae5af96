import { describe, expect, it } from 'vitest';
import { lazyProvider } from './lazy-provider.js';

interface Provider {
  (modelId: string): { modelId: string; via: string };
  chat(modelId: string): { modelId: string; via: string };
  readonly providerName: string;
}

function createProvider(): Provider {
  if (process.env.LAZY_PROVIDER_KEY === undefined)
    throw new TypeError('LAZY_PROVIDER_KEY is not set');
  const provider = ((modelId: string) => ({ modelId, via: 'call' })) as Provider;
  return Object.assign(provider, {
    chat: (modelId: string) => ({ modelId, via: 'chat' }),
    providerName: 'fake',
  });
}

describe('lazyProvider', () => {
  it('creates the provider on first use, so a missing key throws there and not at import', () => {
    delete process.env.LAZY_PROVIDER_KEY;
    let created = 0;
    const provider = lazyProvider(() => (created++, createProvider()));
    expect(created).toBe(0);
    expect(() => provider('m')).toThrow(/LAZY_PROVIDER_KEY/);
    process.env.LAZY_PROVIDER_KEY = 'k';
    try {
      expect(provider('m')).toEqual({ modelId: 'm', via: 'call' });
      expect(provider.chat('m')).toEqual({ modelId: 'm', via: 'chat' });
      expect(provider.providerName).toBe('fake');
      expect(created).toBe(2);
    } finally {
      delete process.env.LAZY_PROVIDER_KEY;
    }
  });
});
