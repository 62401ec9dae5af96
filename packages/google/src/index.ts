export { createGoogle, GOOGLE_BASE_URL } from './google-provider.js';
export type {
  GoogleProvider,
  GoogleProviderSettings,
  GoogleModelSettings,
} from './google-provider.js';
export { GoogleChatModel } from './google-chat-model.js';
export type { GoogleChatModelConfig } from './google-chat-model.js';
export { buildGoogleRequest } from './google-request.js';
export type { BuiltGoogleRequest, GoogleRequestSettings } from './google-request.js';
export { convertToGoogleContents, GOOGLE_METADATA_KEY } from './google-convert-messages.js';
export type { GoogleCallMetadata } from './google-convert-messages.js';
export {
  GoogleResponseAccumulator,
  normalizeGoogleUsage,
  normalizeGoogleFinishReason,
} from './google-response.js';
export type { GoogleWireResponse, GoogleWireUsage } from './google-response.js';
export { mapGoogleError } from './google-errors.js';
