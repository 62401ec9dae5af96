// Request builders, message converters, stream accumulators and wire types of @toolwire/openai:
// what a custom transport or a test needs, with no stability promise (`@toolwire/openai/internal`).
export { buildOpenAIRequest } from './openai-request.js';
export type { BuiltOpenAIRequest, OpenAIRequestSettings } from './openai-request.js';
export { convertMessagesToOpenAI } from './openai-convert-messages.js';
export type { ConvertMessagesOptions } from './openai-convert-messages.js';
export { OpenAIStreamAccumulator } from './openai-stream-accumulator.js';
export type { OpenAIWireChunk } from './openai-stream-accumulator.js';
export {
  normalizeOpenAIUsage,
  normalizeOpenAIFinishReason,
  readOpenAICompletion,
} from './openai-response.js';
export { buildOpenAIResponsesRequest } from './openai-responses-request.js';
export type {
  BuiltOpenAIResponsesRequest,
  OpenAIResponsesRequestSettings,
} from './openai-responses-request.js';
export {
  convertMessagesToResponsesInput,
  RESPONSES_METADATA_KEY,
} from './openai-responses-input.js';
export { OpenAIResponsesStreamAccumulator } from './openai-responses-stream-accumulator.js';
export type { ResponsesStreamEvent } from './openai-responses-stream-accumulator.js';
export {
  readResponsesOutput,
  normalizeResponsesUsage,
  normalizeResponsesFinishReason,
} from './openai-responses-response.js';
export type * from './openai-wire.js';
