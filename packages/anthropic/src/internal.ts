// Request builders, message converters, stream accumulators and wire types of @toolwire/anthropic:
// what a custom transport or a test needs, with no stability promise.
export {
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_IDLE_TIMEOUT_MS,
  NON_STREAMING_MAX_TOKENS,
} from './anthropic-chat-model.js';
export type { AnthropicChatModelConfig } from './anthropic-chat-model.js';
export { prepareAnthropicTools, DEFAULT_RESPONSE_TOOL_NAME } from './anthropic-prepare-tools.js';
export type { PrepareToolsOptions, PreparedTools } from './anthropic-prepare-tools.js';
export { convertToAnthropicMessages } from './anthropic-convert-messages.js';
export type { AnthropicPrompt } from './anthropic-convert-messages.js';
export { AnthropicStreamAccumulator } from './anthropic-stream-accumulator.js';
export type { AnthropicStreamEvent } from './anthropic-stream-accumulator.js';
export {
  finishAnthropicResponse,
  mapAnthropicFinishReason,
  mapAnthropicUsage,
} from './anthropic-response.js';
export type * from './anthropic-wire.js';
