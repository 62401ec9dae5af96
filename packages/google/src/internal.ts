// Request builders, message converters, the Gemini schema dialect, response accumulators and wire
// types of @toolwire/google: what a custom transport or a test needs, with no stability promise.
export { GOOGLE_BASE_URL } from './google-provider.js';
export type { GoogleChatModelConfig } from './google-chat-model.js';
export { buildGoogleRequest } from './google-request.js';
export type { BuiltGoogleRequest, GoogleRequestSettings } from './google-request.js';
export { prepareGoogleTools } from './google-prepare-tools.js';
export type { PreparedGoogleTools } from './google-prepare-tools.js';
export { convertToGoogleSchema } from './google-schema-dialect.js';
export { convertToGoogleMessages, GOOGLE_METADATA_KEY } from './google-convert-messages.js';
export type { GoogleCallMetadata } from './google-convert-messages.js';
export {
  GoogleResponseAccumulator,
  mapGoogleUsage,
  mapGoogleFinishReason,
} from './google-response.js';
export type * from './google-wire.js';
