export { anthropic, createAnthropic } from './anthropic-provider.js';
export type {
  AnthropicProvider,
  AnthropicProviderSettings,
  AnthropicProviderOptions,
} from './anthropic-provider.js';
export {
  AnthropicChatModel,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_IDLE_TIMEOUT_MS,
  NON_STREAMING_MAX_TOKENS,
} from './anthropic-chat-model.js';
export type { AnthropicModelSettings, AnthropicThinkingSetting } from './anthropic-chat-model.js';
export { mapAnthropicError } from './anthropic-errors.js';
/** @deprecated on the root entry: import converters and wire types from `./internal`. */
export * from './internal.js';
