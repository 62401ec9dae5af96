export { createAnthropic } from './anthropic-provider.js';
export type { AnthropicProvider, AnthropicProviderOptions } from './anthropic-provider.js';
export {
  AnthropicChatModel,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_IDLE_TIMEOUT_MS,
  NON_STREAMING_MAX_TOKENS,
} from './anthropic-chat-model.js';
export type { AnthropicModelSettings, AnthropicThinkingSetting } from './anthropic-chat-model.js';
export { prepareAnthropicTools, DEFAULT_RESPONSE_TOOL_NAME } from './anthropic-prepare-tools.js';
export { convertToAnthropicMessages } from './anthropic-convert-messages.js';
export { AnthropicStreamAccumulator } from './anthropic-stream-accumulator.js';
export type { AnthropicStreamEvent } from './anthropic-stream-accumulator.js';
export {
  finishAnthropicResponse,
  mapAnthropicStopReason,
  mapAnthropicUsage,
} from './anthropic-response.js';
export { mapAnthropicError } from './anthropic-errors.js';
export type * from './anthropic-wire.js';
