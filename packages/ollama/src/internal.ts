// Request builders, message converters, stream accumulators and wire types of @toolwire/ollama:
// what a custom transport or a test needs, with no stability promise.
export { DEFAULT_IDLE_TIMEOUT_MS } from './ollama-chat-model.js';
export type { OllamaChatModelConfig } from './ollama-chat-model.js';
export { prepareOllamaTools, hasToolHistory } from './ollama-prepare-tools.js';
export type { PreparedOllamaTools } from './ollama-prepare-tools.js';
export { convertToOllamaMessages } from './ollama-convert-messages.js';
export { OllamaStreamAccumulator } from './ollama-stream-accumulator.js';
export type { OllamaAssembled } from './ollama-stream-accumulator.js';
export { finishOllamaResponse, mapOllamaFinishReason } from './ollama-response.js';
export type * from './ollama-wire.js';
