// Request builders, message converters, schema dialects, stream accumulators and wire types of
// @toolwire/openai: what a custom transport or a test needs, with no stability promise.
export { OPENAI_BASE_URL, XAI_BASE_URL } from './openai-provider.js';
export type { OpenAIChatModelConfig } from './openai-chat-model.js';
export type { OpenAIResponsesModelConfig } from './openai-responses-model.js';
export { buildOpenAIRequest } from './openai-request.js';
export type { BuiltOpenAIRequest, OpenAIRequestSettings } from './openai-request.js';
export { prepareOpenAITools, prepareOpenAIResponseFormat } from './openai-prepare-tools.js';
export type {
  OpenAIPrepareToolsSettings,
  PreparedOpenAITools,
  OpenAIJsonSchemaFormat,
} from './openai-prepare-tools.js';
export { convertToOpenAISchema } from './openai-schema-dialect.js';
export type { OpenAISchemaDialect, OpenAIConvertedSchema } from './openai-schema-dialect.js';
export { convertToOpenAIMessages } from './openai-convert-messages.js';
export type { ConvertToOpenAIMessagesOptions } from './openai-convert-messages.js';
export { OpenAIStreamAccumulator } from './openai-stream-accumulator.js';
export type { OpenAIWireChunk } from './openai-stream-accumulator.js';
export { mapOpenAIUsage, mapOpenAIFinishReason, readOpenAICompletion } from './openai-response.js';
export { buildOpenAIResponsesRequest } from './openai-responses-request.js';
export type {
  BuiltOpenAIResponsesRequest,
  OpenAIResponsesRequestSettings,
} from './openai-responses-request.js';
export {
  convertToOpenAIResponsesMessages,
  RESPONSES_METADATA_KEY,
} from './openai-responses-convert-messages.js';
export { OpenAIResponsesStreamAccumulator } from './openai-responses-stream-accumulator.js';
export type { ResponsesStreamEvent } from './openai-responses-stream-accumulator.js';
export {
  readOpenAIResponsesOutput,
  mapOpenAIResponsesUsage,
  mapOpenAIResponsesFinishReason,
} from './openai-responses-response.js';
export type * from './openai-wire.js';
