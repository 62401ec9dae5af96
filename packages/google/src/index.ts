export { createGoogle, google } from './google-provider.js';
export type {
  GoogleProvider,
  GoogleProviderSettings,
  GoogleModelSettings,
} from './google-provider.js';
export { GoogleChatModel } from './google-chat-model.js';
export { mapGoogleError } from './google-errors.js';
