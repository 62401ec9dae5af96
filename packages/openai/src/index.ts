export { createOpenAI, createXai, openai, xai } from './openai-provider.js';
export type {
  OpenAIProvider,
  OpenAIProviderSettings,
  OpenAIChatSettings,
  OpenAIResponsesSettings,
  XaiProviderSettings,
} from './openai-provider.js';
export { OpenAIChatModel } from './openai-chat-model.js';
export { OpenAIResponsesModel } from './openai-responses-model.js';
export { mapOpenAIError } from './openai-errors.js';
