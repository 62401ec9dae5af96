import type { ToolwireConfig } from '@toolwire/mcp';
import { ToolwireError, type ChatModel } from '@toolwire/schema';

type ProviderName = 'openai' | 'openai-responses' | 'anthropic' | 'ollama' | 'xai' | 'google';
const PROVIDERS: readonly ProviderName[] = [
  'openai',
  'openai-responses',
  'anthropic',
  'ollama',
  'xai',
  'google',
];

const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';
// The adapters' own defaults, repeated so that only the chosen provider's SDK is loaded.
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const XAI_BASE_URL = 'https://api.x.ai/v1';
const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
const GOOGLE_BASE_URL = 'https://generativelanguage.googleapis.com';

/** Models used when neither `--model` nor the config names one (Ollama: the first one installed). */
const DEFAULT_MODELS: Record<Exclude<ProviderName, 'ollama'>, string> = {
  openai: 'gpt-5.4-mini',
  'openai-responses': 'gpt-5.4-mini',
  anthropic: 'claude-sonnet-4-6',
  xai: 'grok-4',
  google: 'gemini-2.5-flash',
};

const KEY_VARIABLES: Record<ProviderName, string | undefined> = {
  openai: 'OPENAI_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  xai: 'XAI_API_KEY',
  google: 'GEMINI_API_KEY',
  ollama: undefined,
};

/** What to tell a user who has configured no model at all. */
export function whatToConfigure(probed: string): string {
  return (
    `no model provider is configured and no Ollama answered at ${probed}. ` +
    'Set one of OPENAI_API_KEY, ANTHROPIC_API_KEY, XAI_API_KEY or GEMINI_API_KEY, start Ollama (or set OLLAMA_HOST), ' +
    `or pass --provider ${PROVIDERS.join('|')} with --model (and --base-url/--api-key as needed), ` +
    'or add a "chat" section to toolwire.config.json'
  );
}

/** The provider cannot be used as configured (no key, no model, nothing to talk to): exit 2. */
class ProviderNotConfiguredError extends ToolwireError {
  constructor(message: string) {
    super('provider_not_configured', { message });
    this.name = 'ProviderNotConfiguredError';
  }
}

/** The provider's server does not answer: exit 1. */
export class ProviderUnreachableError extends ToolwireError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('provider_unreachable', { message, cause: options.cause });
    this.name = 'ProviderUnreachableError';
  }
}

export interface ProviderFlags {
  provider?: ProviderName;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
}

export interface ResolvedProvider {
  provider: ProviderName;
  model: string;
  /** Where requests go (for messages). */
  baseUrl: string;
  chatModel: ChatModel;
}

type Env = Record<string, string | undefined>;

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * Picks the provider: `--provider`, else the config's `chat.provider`, else the first of
 * OPENAI_API_KEY, ANTHROPIC_API_KEY, XAI_API_KEY, GEMINI_API_KEY (or GOOGLE_API_KEY), OLLAMA_HOST
 * that is set, else an Ollama that
 * answers at its default address; with none, a ProviderNotConfiguredError that says what to set.
 * Model, base URL and key come from the flags, else the config (when it is about the same
 * provider), else the provider's usual environment variables, else the defaults.
 */
export async function resolveProvider(
  flags: ProviderFlags,
  config: ToolwireConfig,
  env: Env,
  fetchImpl: typeof fetch = fetch,
): Promise<ResolvedProvider> {
  const chat = config.chat ?? {};
  let provider: ProviderName | undefined = flags.provider ?? chat.provider;
  let probedModels: string[] | undefined;
  if (provider === undefined) {
    if (nonEmpty(env.OPENAI_API_KEY)) provider = 'openai';
    else if (nonEmpty(env.ANTHROPIC_API_KEY)) provider = 'anthropic';
    else if (nonEmpty(env.XAI_API_KEY)) provider = 'xai';
    else if (nonEmpty(env.GEMINI_API_KEY) ?? nonEmpty(env.GOOGLE_API_KEY)) provider = 'google';
    else if (nonEmpty(env.OLLAMA_HOST)) provider = 'ollama';
    else {
      const host = nonEmpty(flags.baseUrl) ?? DEFAULT_OLLAMA_HOST;
      probedModels = await listOllamaModels(host, fetchImpl).catch(() => undefined);
      if (probedModels === undefined) throw new ProviderNotConfiguredError(whatToConfigure(host));
      provider = 'ollama';
    }
  }
  // The config's chat section only speaks for the provider it names (or for any, when it names none).
  const fromConfig = chat.provider === undefined || chat.provider === provider ? chat : {};
  const baseUrl =
    nonEmpty(flags.baseUrl) ?? nonEmpty(fromConfig.baseUrl) ?? defaultBaseUrl(provider, env);
  const keyVariable = KEY_VARIABLES[provider];
  const apiKey =
    nonEmpty(flags.apiKey) ??
    nonEmpty(fromConfig.apiKey) ??
    (keyVariable !== undefined ? nonEmpty(env[keyVariable]) : undefined) ??
    (provider === 'google' ? nonEmpty(env.GOOGLE_API_KEY) : undefined);

  let model = nonEmpty(flags.model) ?? nonEmpty(fromConfig.model);
  if (model === undefined) {
    if (provider === 'ollama') {
      probedModels ??= await listOllamaModels(baseUrl, fetchImpl).catch((error: unknown) => {
        throw new ProviderUnreachableError(
          `cannot reach Ollama at ${baseUrl} to pick a model (${(error as Error).message}); start it with "ollama serve", set OLLAMA_HOST, or pass --model`,
          { cause: error },
        );
      });
      model = probedModels[0];
      if (model === undefined) {
        throw new ProviderNotConfiguredError(
          `Ollama at ${baseUrl} has no models: run "ollama pull llama3.2" or pass --model`,
        );
      }
    } else {
      model = DEFAULT_MODELS[provider];
    }
  }
  const chatModel = await createChatModel(provider, model, baseUrl, apiKey);
  return { provider, model, baseUrl, chatModel };
}

function defaultBaseUrl(provider: ProviderName, env: Env): string {
  switch (provider) {
    case 'openai':
    case 'openai-responses':
      return nonEmpty(env.OPENAI_BASE_URL) ?? OPENAI_BASE_URL;
    case 'google':
      return nonEmpty(env.GOOGLE_GEMINI_BASE_URL) ?? GOOGLE_BASE_URL;
    case 'xai':
      return XAI_BASE_URL;
    case 'anthropic':
      return nonEmpty(env.ANTHROPIC_BASE_URL) ?? ANTHROPIC_BASE_URL;
    case 'ollama':
      return normaliseOllamaHost(nonEmpty(env.OLLAMA_HOST) ?? DEFAULT_OLLAMA_HOST);
  }
}

/** OLLAMA_HOST is often written without a scheme (`127.0.0.1:11434`, `0.0.0.0`). */
export function normaliseOllamaHost(host: string): string {
  const trimmed = host.trim().replace(/\/+$/, '');
  const url = /^[a-z]+:\/\//i.test(trimmed)
    ? trimmed
    : `http://${/:\d+$/.test(trimmed) ? trimmed : `${trimmed}:11434`}`;
  // 0.0.0.0 is where a server listens, not an address to connect to.
  return url.replace('://0.0.0.0', '://127.0.0.1');
}

/** Names of the models an Ollama server has (`GET /api/tags`); throws when it does not answer. */
export async function listOllamaModels(host: string, fetchImpl: typeof fetch): Promise<string[]> {
  const response = await fetchImpl(`${normaliseOllamaHost(host)}/api/tags`, {
    signal: AbortSignal.timeout(2000),
  });
  if (!response.ok) throw new Error(`GET /api/tags answered ${response.status}`);
  const body = (await response.json()) as { models?: Array<{ name?: unknown; model?: unknown }> };
  return (body.models ?? [])
    .map((entry) => (typeof entry.name === 'string' ? entry.name : entry.model))
    .filter((name): name is string => typeof name === 'string');
}

async function createChatModel(
  provider: ProviderName,
  model: string,
  baseUrl: string,
  apiKey: string | undefined,
): Promise<ChatModel> {
  const needKey = (variable: string) =>
    new ProviderNotConfiguredError(
      `--provider ${provider} needs an API key: set ${variable} or pass --api-key (or "chat.apiKey" in the config)`,
    );
  switch (provider) {
    case 'openai':
    case 'openai-responses': {
      // A compatible server (LM Studio, vLLM, llama.cpp) at another URL may need no key.
      if (apiKey === undefined && baseUrl === OPENAI_BASE_URL) throw needKey('OPENAI_API_KEY');
      const { createOpenAI } = await import('@toolwire/openai');
      const openai = createOpenAI({
        baseURL: baseUrl,
        apiKey: apiKey ?? 'none',
        ...(baseUrl === OPENAI_BASE_URL ? {} : { provider: 'openai-compatible' }),
      });
      return provider === 'openai' ? openai(model) : openai.responses(model);
    }
    case 'google': {
      if (apiKey === undefined) throw needKey('GEMINI_API_KEY');
      const { createGoogle } = await import('@toolwire/google');
      return createGoogle({ apiKey, baseURL: baseUrl })(model);
    }
    case 'xai': {
      if (apiKey === undefined) throw needKey('XAI_API_KEY');
      const { createXai } = await import('@toolwire/openai');
      return createXai({ baseURL: baseUrl, apiKey })(model);
    }
    case 'anthropic': {
      if (apiKey === undefined) throw needKey('ANTHROPIC_API_KEY');
      const { createAnthropic } = await import('@toolwire/anthropic');
      return createAnthropic({ baseURL: baseUrl, apiKey })(model);
    }
    case 'ollama': {
      const { createOllama } = await import('@toolwire/ollama');
      return createOllama({ host: normaliseOllamaHost(baseUrl) })(model);
    }
  }
}
