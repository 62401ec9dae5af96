export { anthropic, createAnthropic } from './anthropic-provider.js';
export type { AnthropicProvider, AnthropicProviderSettings } from './anthropic-provider.js';
export { AnthropicChatModel } from './anthropic-chat-model.js';
export type { AnthropicModelSettings, AnthropicThinkingSetting } from './anthropic-chat-model.js';
export { mapAnthropicError } from './anthropic-errors.js';
