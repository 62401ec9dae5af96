export { createOpenAI, createXai, OPENAI_BASE_URL, XAI_BASE_URL } from './openai-provider.js';
export type {
  OpenAIProvider,
  OpenAIProviderSettings,
  OpenAIChatSettings,
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
