export { createGoogle, google, GOOGLE_BASE_URL } from './google-provider.js';
export type {
  GoogleProvider,
  GoogleProviderSettings,
  GoogleModelSettings,
} from './google-provider.js';
export { GoogleChatModel } from './google-chat-model.js';
export type { GoogleChatModelConfig } from './google-chat-model.js';
export { mapGoogleError } from './google-errors.js';
/** @deprecated on the root entry: import converters and wire types from `./internal`. */
export * from './internal.js';
