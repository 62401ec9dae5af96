export { createOllama, ollama } from './ollama-provider.js';
export type { OllamaProvider, OllamaProviderSettings } from './ollama-provider.js';
export { OllamaChatModel } from './ollama-chat-model.js';
export type { OllamaModelSettings } from './ollama-chat-model.js';
export { mapOllamaError } from './ollama-errors.js';
