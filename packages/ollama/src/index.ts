export { createOllama, ollama } from './ollama-provider.js';
export type {
  OllamaProvider,
  OllamaProviderSettings,
  OllamaProviderOptions,
} from './ollama-provider.js';
export { OllamaChatModel, DEFAULT_IDLE_TIMEOUT_MS } from './ollama-chat-model.js';
export type { OllamaModelSettings } from './ollama-chat-model.js';
export { mapOllamaError } from './ollama-errors.js';
/** @deprecated on the root entry: import converters and wire types from `./internal`. */
export * from './internal.js';
