// Request builders, message converters, stream accumulators and wire types of @toolwire/ollama:
// what a custom transport or a test needs, with no stability promise (`@toolwire/ollama/internal`).
export { prepareOllamaTools, hasToolHistory } from './ollama-prepare-tools.js';
export { convertToOllamaMessages } from './ollama-convert-messages.js';
export { OllamaStreamAccumulator } from './ollama-stream-accumulator.js';
export type { OllamaAssembled } from './ollama-stream-accumulator.js';
export { finishOllamaResponse, mapOllamaDoneReason } from './ollama-response.js';
export type * from './ollama-wire.js';
