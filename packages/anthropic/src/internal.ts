// Request builders, message converters, stream accumulators and wire types of @toolwire/anthropic:
// what a custom transport or a test needs, with no stability promise (`@toolwire/anthropic/internal`).
export { prepareAnthropicTools, DEFAULT_RESPONSE_TOOL_NAME } from './anthropic-prepare-tools.js';
export { convertToAnthropicMessages } from './anthropic-convert-messages.js';
export { AnthropicStreamAccumulator } from './anthropic-stream-accumulator.js';
export type { AnthropicStreamEvent } from './anthropic-stream-accumulator.js';
export {
  finishAnthropicResponse,
  mapAnthropicStopReason,
  mapAnthropicUsage,
} from './anthropic-response.js';
export type * from './anthropic-wire.js';
