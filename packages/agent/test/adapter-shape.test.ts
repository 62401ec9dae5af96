// The provider adapters share one public shape (STYLE.md, vercel/ai's providers): `createX(settings)`
// returning a callable provider, a default instance `x` created on first use, `XProviderSettings`,
// and converters and wire types behind `@toolwire/x/internal`.
import * as anthropic from '@toolwire/anthropic';
import * as anthropicInternal from '@toolwire/anthropic/internal';
import * as google from '@toolwire/google';
import * as googleInternal from '@toolwire/google/internal';
import * as ollama from '@toolwire/ollama';
import * as ollamaInternal from '@toolwire/ollama/internal';
import * as openai from '@toolwire/openai';
import * as openaiInternal from '@toolwire/openai/internal';
import type { ChatModel } from '@toolwire/schema';
import { describe, expect, it } from 'vitest';

const adapters = [
  {
    name: 'openai',
    root: openai as Record<string, unknown>,
    internal: openaiInternal,
    env: { OPENAI_API_KEY: 'k' },
  },
  {
    name: 'anthropic',
    root: anthropic as Record<string, unknown>,
    internal: anthropicInternal,
    env: { ANTHROPIC_API_KEY: 'k' },
  },
  { name: 'ollama', root: ollama as Record<string, unknown>, internal: ollamaInternal, env: {} },
  {
    name: 'google',
    root: google as Record<string, unknown>,
    internal: googleInternal,
    env: { GEMINI_API_KEY: 'k' },
  },
];

const capitalized: Record<string, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  ollama: 'Ollama',
  google: 'Google',
};

describe.each(adapters)('@toolwire/$name', ({ name, root, internal, env }) => {
  it('exports createX and a callable default instance that builds a ChatModel', () => {
    const create = root[`create${capitalized[name]}`] as (
      settings: object,
    ) => (id: string) => ChatModel;
    expect(typeof create).toBe('function');
    expect(typeof create({ apiKey: 'k' })('model-1').stream).toBe('function');
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      const model = (root[name] as (id: string) => ChatModel)('model-1');
      expect(model.modelId).toBe('model-1');
    } finally {
      for (const key of Object.keys(env)) if (!(key in saved)) delete process.env[key];
    }
  });

  it('has its converters behind ./internal, still reachable (deprecated) from the root', () => {
    const converters = Object.keys(internal).filter((key) => /^convert/.test(key));
    expect(converters.length).toBeGreaterThan(0);
    for (const key of Object.keys(internal))
      expect(root[key]).toBe((internal as Record<string, unknown>)[key]);
  });
});
