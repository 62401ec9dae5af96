export {
  createOpenAI,
  createXai,
  openai,
  xai,
  OPENAI_BASE_URL,
  XAI_BASE_URL,
} from './openai-provider.js';
export type {
  OpenAIProvider,
  OpenAIProviderSettings,
  OpenAIChatSettings,
  OpenAIResponsesSettings,
  XaiProviderSettings,
} from './openai-provider.js';
export { OpenAIChatModel } from './openai-chat-model.js';
export type { OpenAIChatModelConfig } from './openai-chat-model.js';
export { mapOpenAIError } from './openai-errors.js';
export { OpenAIResponsesModel } from './openai-responses-model.js';
export type { OpenAIResponsesModelConfig } from './openai-responses-model.js';
/** @deprecated on the root entry: import converters and wire types from `./internal`. */
export * from './internal.js';
