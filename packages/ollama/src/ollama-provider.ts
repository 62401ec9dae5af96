import { lazyProvider } from '@toolwire/schema';
import type { Ollama } from 'ollama/browser';
import { OllamaChatModel, type OllamaModelSettings } from './ollama-chat-model.js';

export interface OllamaProviderSettings {
  /**
   * An `ollama` client of your own: its host, headers and fetch are used. Each request still gets
   * a client of its own with those settings, so that one request can be aborted alone (the
   * package aborts a client's requests all together).
   */
  client?: Ollama;
  /** The Ollama server, e.g. `http://127.0.0.1:11434` (the default). */
  host?: string;
  /** Headers sent with every request (e.g. `Authorization` for a hosted Ollama). */
  headers?: Record<string, string>;
  /** A custom fetch (proxies, tests, edge runtimes). */
  fetch?: typeof fetch;
  /** Default `idleTimeoutMs` of this provider's models (a model's own setting wins). */
  idleTimeoutMs?: number;
}

export type OllamaProvider = (modelId: string, settings?: OllamaModelSettings) => OllamaChatModel;

/** Creates the Ollama provider: `createOllama()('llama3.2')` is a `ChatModel`. */
export function createOllama(options: OllamaProviderSettings = {}): OllamaProvider {
  // `config` and `fetch` are protected in the package's types; they hold what the client was
  // created with (`fetch` is the global one when it was given none).
  const own = options.client as
    | {
        config: { host: string; headers?: ConstructorParameters<typeof Headers>[0] };
        fetch: typeof fetch;
      }
    | undefined;
  const host = options.host ?? own?.config.host;
  const headers = {
    ...(own?.config.headers ? Object.fromEntries(new Headers(own.config.headers)) : {}),
    ...options.headers,
  };
  const customFetch = options.fetch ?? own?.fetch;
  return (modelId, settings = {}) => {
    if (typeof modelId !== 'string' || modelId.trim() === '')
      throw new TypeError('modelId must be a non-empty string, e.g. "llama3.2"');
    return new OllamaChatModel(modelId, {
      host,
      headers,
      fetch: customFetch,
      settings: {
        ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
        ...settings,
      },
    });
  };
}

/** @deprecated Use `OllamaProviderSettings` (the same type; every adapter names it `XProviderSettings`). */
export type OllamaProviderOptions = OllamaProviderSettings;

/** The default provider (`http://127.0.0.1:11434`), created on first use. */
export const ollama: OllamaProvider = lazyProvider(() => createOllama());
