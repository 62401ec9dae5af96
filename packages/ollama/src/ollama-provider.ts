import { lazyProvider, UsageError } from '@toolwire/schema';
import { OllamaChatModel, type OllamaModelSettings } from './ollama-chat-model.js';

export interface OllamaProviderSettings {
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
  return (modelId, settings = {}) => {
    if (typeof modelId !== 'string' || modelId.trim() === '')
      throw new UsageError({ message: 'modelId must be a non-empty string, e.g. "llama3.2"' });
    return new OllamaChatModel(modelId, {
      host: options.host,
      headers: options.headers,
      fetch: options.fetch,
      settings: {
        ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
        ...settings,
      },
    });
  };
}

/** The default provider (`http://127.0.0.1:11434`), created on first use. */
export const ollama: OllamaProvider = lazyProvider(() => createOllama());
