// Request builders, message converters, stream accumulators and wire types of @toolwire/google:
// what a custom transport or a test needs, with no stability promise (`@toolwire/google/internal`).
export { buildGoogleRequest } from './google-request.js';
export type { BuiltGoogleRequest, GoogleRequestSettings } from './google-request.js';
export { convertToGoogleContents, GOOGLE_METADATA_KEY } from './google-convert-messages.js';
export type { GoogleCallMetadata } from './google-convert-messages.js';
export {
  GoogleResponseAccumulator,
  normalizeGoogleUsage,
  normalizeGoogleFinishReason,
} from './google-response.js';
export type * from './google-wire.js';
