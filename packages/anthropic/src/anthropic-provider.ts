import Anthropic from '@anthropic-ai/sdk';
import { lazyProvider } from '@toolwire/schema';
import { AnthropicChatModel, type AnthropicModelSettings } from './anthropic-chat-model.js';

export interface AnthropicProviderSettings {
  /**
   * An `@anthropic-ai/sdk` client of your own, used as it is: `apiKey`, `baseURL`, `headers`,
   * `fetch` and `maxRetries` are then the client's business.
   */
  client?: Anthropic;
  /**
   * Let the SDK run in a browser, where the API key is visible to the page's users (the SDK's own
   * `dangerouslyAllowBrowser`). Use a key of little worth or a server of your own in front.
   */
  dangerouslyAllowBrowser?: boolean;
  /** Defaults to the `ANTHROPIC_API_KEY` environment variable (read by the SDK). */
  apiKey?: string;
  /** Defaults to `https://api.anthropic.com` (or `ANTHROPIC_BASE_URL`). */
  baseURL?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** A custom fetch (proxies, tests, edge runtimes). */
  fetch?: typeof fetch;
  /** Default `idleTimeoutMs` of this provider's models (a model's own setting wins). */
  idleTimeoutMs?: number;
  /**
   * SDK-level retries (default 0). Toolwire reports retryable failures as typed errors with
   * `retryable` and `retryAfterMs`, so the caller's loop decides; two retry layers multiply.
   */
  maxRetries?: number;
}

export type AnthropicProvider = (
  modelId: string,
  settings?: AnthropicModelSettings,
) => AnthropicChatModel;

/**
 * Creates the Anthropic provider: `createAnthropic({ apiKey })('claude-sonnet-4-6')` is a
 * `ChatModel`. The SDK client is created on first use and shared by the provider's models.
 */
export function createAnthropic(options: AnthropicProviderSettings = {}): AnthropicProvider {
  let client: Anthropic | undefined = options.client;
  const getClient = () =>
    (client ??= new Anthropic({
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
      ...(options.headers !== undefined ? { defaultHeaders: options.headers } : {}),
      ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
      maxRetries: options.maxRetries ?? 0,
      ...(options.dangerouslyAllowBrowser ? { dangerouslyAllowBrowser: true } : {}),
    }));
  return (modelId, settings = {}) => {
    if (typeof modelId !== 'string' || modelId.trim() === '')
      throw new TypeError('modelId must be a non-empty string, e.g. "claude-sonnet-4-6"');
    return new AnthropicChatModel(modelId, {
      client: getClient,
      settings: {
        ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
        ...settings,
      },
    });
  };
}

/** @deprecated Use `AnthropicProviderSettings` (the same type; every adapter names it `XProviderSettings`). */
export type AnthropicProviderOptions = AnthropicProviderSettings;

/** The default provider (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`), created on first use. */
export const anthropic: AnthropicProvider = lazyProvider(() => createAnthropic());
