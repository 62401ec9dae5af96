import { describe, expect, it } from 'vitest';
import {
  listOllamaModels,
  normaliseOllamaHost,
  resolveProvider,
  whatToConfigure,
} from './provider.js';

/** A fetch that answers GET /api/tags with these models, or fails like a closed port. */
function ollamaFetch(models: string[] | 'down'): typeof fetch {
  return (async (input: string | URL | Request) => {
    if (models === 'down') throw new TypeError('fetch failed');
    expect(String(input)).toMatch(/\/api\/tags$/);
    return new Response(JSON.stringify({ models: models.map((name) => ({ name })) }), {
      headers: { 'content-type': 'application/json' },
    });
  }) as typeof fetch;
}

describe('normaliseOllamaHost', () => {
  it('adds the scheme and default port the way OLLAMA_HOST is usually written', () => {
    expect(normaliseOllamaHost('127.0.0.1')).toBe('http://127.0.0.1:11434');
    expect(normaliseOllamaHost('0.0.0.0:11500')).toBe('http://127.0.0.1:11500');
    expect(normaliseOllamaHost('https://ollama.example.com/')).toBe('https://ollama.example.com');
  });
});

describe('resolveProvider', () => {
  it('prefers flags, then the config, then environment variables', async () => {
    const config = { chat: { provider: 'anthropic' as const, model: 'cfg', apiKey: 'cfg-key' } };
    const env = { OPENAI_API_KEY: 'sk' };
    const fromFlags = await resolveProvider({ provider: 'openai', model: 'flag' }, config, env);
    expect([fromFlags.provider, fromFlags.model]).toEqual(['openai', 'flag']);
    const fromConfig = await resolveProvider({}, config, env);
    expect([fromConfig.provider, fromConfig.model]).toEqual(['anthropic', 'cfg']);
    const fromEnv = await resolveProvider({}, {}, env);
    expect([fromEnv.provider, fromEnv.model, fromEnv.baseUrl]).toEqual([
      'openai',
      'gpt-5.4-mini',
      'https://api.openai.com/v1',
    ]);
  });

  it('finds Gemini from GEMINI_API_KEY or GOOGLE_API_KEY, after the other hosted providers', async () => {
    for (const env of [{ GEMINI_API_KEY: 'g' }, { GOOGLE_API_KEY: 'g' }]) {
      const resolved = await resolveProvider({}, {}, env);
      expect([resolved.provider, resolved.model, resolved.baseUrl]).toEqual([
        'google',
        'gemini-2.5-flash',
        'https://generativelanguage.googleapis.com',
      ]);
      expect(resolved.chatModel.provider).toBe('google');
    }
    const both = await resolveProvider({}, {}, { XAI_API_KEY: 'x', GEMINI_API_KEY: 'g' });
    expect(both.provider).toBe('xai');
  });

  it('makes a Responses model for openai-responses with the OpenAI key and URL', async () => {
    const resolved = await resolveProvider(
      { provider: 'openai-responses' },
      {},
      { OPENAI_API_KEY: 'sk' },
    );
    expect([resolved.provider, resolved.model, resolved.baseUrl]).toEqual([
      'openai-responses',
      'gpt-5.4-mini',
      'https://api.openai.com/v1',
    ]);
    expect(resolved.chatModel.constructor.name).toBe('OpenAIResponsesModel');
    await expect(resolveProvider({ provider: 'google' }, {}, {})).rejects.toThrow(/GEMINI_API_KEY/);
  });

  it('ignores the config chat section when --provider names another provider', async () => {
    const config = {
      chat: { provider: 'anthropic' as const, model: 'claude-x', baseUrl: 'http://a' },
    };
    const resolved = await resolveProvider({ provider: 'xai', apiKey: 'k' }, config, {});
    expect([resolved.provider, resolved.model, resolved.baseUrl]).toEqual([
      'xai',
      'grok-4',
      'https://api.x.ai/v1',
    ]);
  });

  it('falls back to an Ollama that answers at the default address, with its first model', async () => {
    const resolved = await resolveProvider({}, {}, {}, ollamaFetch(['qwen3:4b', 'llama3.2']));
    expect([resolved.provider, resolved.model, resolved.baseUrl]).toEqual([
      'ollama',
      'qwen3:4b',
      'http://127.0.0.1:11434',
    ]);
  });

  it('says what to configure when nothing is set and no Ollama answers', async () => {
    await expect(resolveProvider({}, {}, {}, ollamaFetch('down'))).rejects.toMatchObject({
      code: 'provider_not_configured',
      message: whatToConfigure('http://127.0.0.1:11434'),
    });
  });

  it('asks for a model when the Ollama has none', async () => {
    await expect(resolveProvider({ provider: 'ollama' }, {}, {}, ollamaFetch([]))).rejects.toThrow(
      /has no models.*ollama pull/,
    );
  });

  it('needs a key for OpenAI itself but not for a compatible server', async () => {
    await expect(resolveProvider({ provider: 'openai' }, {}, {})).rejects.toThrow(/OPENAI_API_KEY/);
    const local = await resolveProvider(
      { provider: 'openai', baseUrl: 'http://127.0.0.1:1234/v1', model: 'qwen' },
      {},
      {},
    );
    expect(local.chatModel.provider).toBe('openai-compatible');
  });
});

describe('listOllamaModels', () => {
  it('reads model names from /api/tags', async () => {
    expect(await listOllamaModels('127.0.0.1', ollamaFetch(['a', 'b']))).toEqual(['a', 'b']);
  });
});

describe('provider defaults', () => {
  it('match the OpenAI adapter (repeated here so only the chosen SDK is loaded)', async () => {
    const adapter = await import('@toolwire/openai/internal');
    const ours = await import('./provider.js');
    expect(ours.OPENAI_BASE_URL).toBe(adapter.OPENAI_BASE_URL);
    expect(ours.XAI_BASE_URL).toBe(adapter.XAI_BASE_URL);
  });
});
