import { createAnthropic } from '@toolwire/anthropic';
import { createGoogle } from '@toolwire/google';
import type { ToolwireConfig } from '@toolwire/mcp';
import { createOllama } from '@toolwire/ollama';
import { createOpenAI, createXai } from '@toolwire/openai';
import { OPENAI_BASE_URL, XAI_BASE_URL } from '@toolwire/openai/internal';
import type { ChatModel } from '@toolwire/schema';
import { HttpError } from './http-util.js';

const KEY_VARIABLES: Record<string, string | undefined> = {
  openai: 'OPENAI_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  xai: 'XAI_API_KEY',
  google: 'GEMINI_API_KEY',
  ollama: undefined,
};

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function notConfigured(message: string, param: string | null): HttpError {
  return new HttpError(
    400,
    message,
    -32602,
    {},
    {
      type: 'invalid_request_error',
      param,
      code: 'model_not_configured',
    },
  );
}

/**
 * The upstream model of `/v1/chat/completions`, from the config's `chat` section (`model` may be
 * overridden per request). Throws a 400 naming what to configure when there is none: not a 5xx,
 * which OpenAI SDKs would retry although nothing changes until the config does.
 */
export function chatModelFromConfig(
  config: ToolwireConfig,
  requestedModel: string | undefined,
  env: Record<string, string | undefined> = process.env,
): ChatModel {
  const chat = config.chat;
  if (!chat?.provider) {
    throw notConfigured(
      'No upstream model is configured: add a "chat" section ({ "provider", "baseUrl", "apiKey", "model" }) to toolwire.config.json',
      null,
    );
  }
  const provider = chat.provider;
  const model = nonEmpty(requestedModel) ?? nonEmpty(chat.model);
  if (model === undefined) {
    throw notConfigured(
      'model: no model in the request and none in the config (chat.model)',
      'model',
    );
  }
  const variable = KEY_VARIABLES[provider];
  const apiKey = nonEmpty(chat.apiKey) ?? (variable ? nonEmpty(env[variable]) : undefined);
  const missingKey = () =>
    notConfigured(
      `chat.apiKey: the ${provider} provider needs an API key (or set ${variable})`,
      null,
    );
  switch (provider) {
    case 'openai':
    case 'openai-responses': {
      const baseURL = nonEmpty(chat.baseUrl) ?? OPENAI_BASE_URL;
      if (apiKey === undefined && baseURL === OPENAI_BASE_URL) throw missingKey();
      const openai = createOpenAI({
        baseURL,
        apiKey: apiKey ?? 'none',
        ...(baseURL === OPENAI_BASE_URL ? {} : { provider: 'openai-compatible' }),
      });
      return provider === 'openai' ? openai(model) : openai.responses(model);
    }
    case 'google': {
      const key = apiKey ?? nonEmpty(env.GOOGLE_API_KEY);
      if (key === undefined) throw missingKey();
      return createGoogle({
        apiKey: key,
        ...(nonEmpty(chat.baseUrl) ? { baseURL: chat.baseUrl } : {}),
      })(model);
    }
    case 'xai':
      if (apiKey === undefined) throw missingKey();
      return createXai({ baseURL: nonEmpty(chat.baseUrl) ?? XAI_BASE_URL, apiKey })(model);
    case 'anthropic':
      if (apiKey === undefined) throw missingKey();
      return createAnthropic({
        apiKey,
        ...(nonEmpty(chat.baseUrl) ? { baseURL: chat.baseUrl } : {}),
      })(model);
    case 'ollama':
      return createOllama({ host: nonEmpty(chat.baseUrl) ?? 'http://127.0.0.1:11434' })(model);
    default:
      throw notConfigured(`chat.provider: unknown provider "${String(provider)}"`, null);
  }
}
