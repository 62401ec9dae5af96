// The provider adapters share one public shape (STYLE.md, vercel/ai's providers): `createX(settings)`
// returning a callable provider, a default instance `x` created on first use, `XProviderSettings`,
// a small root (at most 12 names), and converters and wire types behind `@toolwire/x/internal`
// under one naming scheme (`convertToXMessages`, `mapXFinishReason`, `prepareXTools`).
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

  it('keeps its root small: at most 12 names, none of them a helper of ./internal', () => {
    const names = Object.keys(root);
    expect(names.length).toBeLessThanOrEqual(12);
    for (const key of Object.keys(internal)) expect(names).not.toContain(key);
  });

  it('names its helpers behind ./internal with one scheme', () => {
    const x = capitalized[name]!;
    for (const helper of [`convertTo${x}Messages`, `map${x}FinishReason`, `prepare${x}Tools`])
      expect(typeof (internal as Record<string, unknown>)[helper], helper).toBe('function');
    const offScheme = Object.keys(internal).filter((key) =>
      /^(convert(?!To)|normali[sz]e|.*(Stop|Done)Reason)/.test(key),
    );
    expect(offScheme).toEqual([]);
  });
});
