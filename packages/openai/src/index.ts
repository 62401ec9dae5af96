export { createOpenAI, createXai, OPENAI_BASE_URL, XAI_BASE_URL } from './openai-provider.js';
export type {
  OpenAIProvider,
  OpenAIProviderSettings,
  OpenAIChatSettings,
  OpenAIResponsesSettings,
  XaiProviderSettings,
} from './openai-provider.js';
export { OpenAIChatModel } from './openai-chat-model.js';
export type { OpenAIChatModelConfig } from './openai-chat-model.js';
export { buildOpenAIRequest } from './openai-request.js';
export type {
  BuiltOpenAIRequest,
  OpenAIRequestBody,
  OpenAIRequestSettings,
  OpenAIToolWire,
} from './openai-request.js';
export { convertMessagesToOpenAI } from './openai-messages.js';
export type {
  OpenAIWireMessage,
  OpenAIUserContentPart,
  OpenAIWireToolCall,
  ConvertMessagesOptions,
} from './openai-messages.js';
export { OpenAIStreamAccumulator } from './openai-stream-accumulator.js';
export type { OpenAIWireChunk } from './openai-stream-accumulator.js';
export {
  normalizeOpenAIUsage,
  normalizeOpenAIFinishReason,
  readOpenAICompletion,
} from './openai-response.js';
export type { OpenAIWireUsage, OpenAIWireCompletion } from './openai-response.js';
export { mapOpenAIError } from './openai-errors.js';
export { OpenAIResponsesModel } from './openai-responses-model.js';
export type { OpenAIResponsesModelConfig } from './openai-responses-model.js';
export { buildOpenAIResponsesRequest } from './openai-responses-request.js';
export type {
  BuiltOpenAIResponsesRequest,
  OpenAIResponsesRequestBody,
  OpenAIResponsesRequestSettings,
  ResponsesToolWire,
} from './openai-responses-request.js';
export {
  convertMessagesToResponsesInput,
  RESPONSES_METADATA_KEY,
} from './openai-responses-input.js';
export type { ResponsesInputItem, ResponsesInputContent } from './openai-responses-input.js';
export { OpenAIResponsesStreamAccumulator } from './openai-responses-stream-accumulator.js';
export type { ResponsesStreamEvent } from './openai-responses-stream-accumulator.js';
export {
  readResponsesOutput,
  normalizeResponsesUsage,
  normalizeResponsesFinishReason,
} from './openai-responses-response.js';
export type {
  ResponsesWireResponse,
  ResponsesWireItem,
  ResponsesWireUsage,
} from './openai-responses-response.js';
