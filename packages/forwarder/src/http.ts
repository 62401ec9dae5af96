// `@toolwire/forwarder/http`: the HTTP plumbing the forwarder's front end is made of, for apps
// that serve routes of their own beside it (`toolwire-server`): one guard for every route, body
// reading with a limit, JSON and JSON-RPC error answers, bearer tokens, streamed answers.
export { createHttpGuard, LOOPBACK_HOSTS } from './http-guard.js';
export { createHttpListener, HTTP_LISTENER_DEFAULTS } from './http-listener.js';
export type { HttpListener, HttpListenerOptions } from './http-listener.js';
export type { AllowedOrigins, HttpGuard, HttpGuardOptions } from './http-guard.js';
export {
  HttpError,
  EVENT_STREAM_HEADERS,
  authenticate,
  decodePathSegment,
  readBody,
  readJson,
  respondWithProgress,
  sendHttpError,
  sendJson,
  sseMessage,
} from './http-helpers.js';
export type { ProgressNotification, RespondWithProgressOptions } from './http-helpers.js';
export { HttpUpstream } from './http-upstream.js';
export type { HttpUpstreamOptions } from './http-upstream.js';
