export { createForwarder } from './forwarder.js';
export type { CreateForwarderOptions, Forwarder, DispatchContext } from './forwarder.js';
export { serveStdio } from './stdio-server.js';
export { upstreamHealth } from './tool-source.js';
export { isKnownProtocol, SUPPORTED_PROTOCOLS } from './mcp-protocol.js';
export {
  GatewayMode,
  isGatewayed,
  listedTool,
  META_SOURCE,
  META_SERVER,
  META_ORIGINAL_NAME,
  META_STATUS,
  META_GATEWAY,
  META_PIN,
} from './gateway-mode.js';
export type { ListedTool } from './gateway-mode.js';
export type {
  UpstreamHealth,
  ToolSource,
  SourceTool,
  SourceServer,
  CallToolResult,
  SourceCallOptions,
} from './tool-source.js';
export type { AuthToken, CallerIdentity } from '@toolwire/config';
export {
  createAccessTokenVerifier,
  InvalidAccessTokenError,
  ACCEPTED_ALGORITHMS,
} from './auth/access-token-verifier.js';
export type {
  AccessTokenVerifier,
  AccessTokenVerifierOptions,
  InvalidTokenReason,
} from './auth/access-token-verifier.js';
export {
  AuthorizationServerError,
  discoverAuthorizationServer,
} from './auth/authorization-server.js';
export type { AuthorizationServerMetadata } from './auth/authorization-server.js';
export { createAuthenticator } from './auth/authenticator.js';
export type { Authenticator, AuthenticatorOptions } from './auth/authenticator.js';
export { protectedResourceMetadata, resourceMetadataUrl } from './auth/protected-resource.js';
/** @deprecated The forwarder reads the whole `ToolwireConfig` of `@toolwire/config`. */
export type { ToolwireConfig as ForwarderConfig } from '@toolwire/config';
export type { CallPipeline, CallPipelineOptions } from './call/call-pipeline.js';
export type { CallContext } from './call/call-context.js';
export type { ToolEntry } from './call/tool-index.js';
export type {
  CallerTools,
  CallerToolsProvider,
  CallerToolSource,
  ViewScope,
} from './call/caller-scope.js';
export type { BatchCall, BatchResult } from './batch.js';
export { MemoryRateLimiter } from './rate-limiter.js';
export type { RateLimiter } from './rate-limiter.js';
export { CircuitBreaker } from './circuit-breaker.js';
export type { BreakerState, CircuitBreakerOptions } from './circuit-breaker.js';
export { ResultCache } from './result-cache.js';
export type { ResultCacheStore } from './result-cache.js';
export { MemoryBreakerStateStore } from './breaker-store.js';
export type {
  BreakerStateStore,
  BreakerStateMember,
  BreakerSnapshot,
  BreakerListener,
} from './breaker-store.js';
export {
  ArgumentRules,
  FILESYSTEM_PATH_ARGUMENTS,
  filesystemDirectories,
  pathRuleWarnings,
} from './argument-rules.js';
export type {
  PathArgumentRule,
  ArgumentViolation,
  ConfinedArguments,
  HandedPath,
} from './argument-rules.js';
export { createJsonLinesAuditSink, isoTimeNow, lineBatcher, redactArguments } from './audit-log.js';
export type { LineBatcher } from './audit-log.js';
export type { AuditEntry, AuditSink } from './audit-log.js';
export type { CallProgress, RunningCallView } from './call/call-record.js';
export { UpstreamError } from './http-upstream.js';
export type { UpstreamFailureKind } from './http-upstream.js';
export { JsonRpcFault, invalidIdReason, toolErrorOf } from './json-rpc.js';
export {
  PARSE_ERROR,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  INVALID_PARAMS,
  INTERNAL_ERROR,
  HEADER_MISMATCH,
  UNAUTHORIZED,
  POLICY_REFUSED,
  RATE_LIMITED,
  UPSTREAM_UNAVAILABLE,
  UPSTREAM_TIMEOUT,
} from './json-rpc.js';
export {
  DEFAULT_CALLER_LIMITS,
  callerKey,
  callerLimitsOf,
  sandboxShareOf,
} from './caller-limits.js';
export type { CallerLimits } from './caller-limits.js';
export { ALL_BRIDGED_CAPABILITIES as BRIDGED_CLIENT_CAPABILITIES } from './bridge/client-capabilities.js';
export type { ServerRequestAnswer } from './http-upstream.js';
export { Sessions } from './sessions.js';
export type { Session, SessionsOptions, Subscription, ListKind } from './sessions.js';
export { memorySessionStore, memoryRecordStore, STREAM_EVENT_LOG_LENGTH } from './session-store.js';
export type {
  SessionStore,
  SessionRevocations,
  StreamEvent,
  RecordStore,
} from './session-store.js';
export { SessionCodec, SESSION_MAX_AGE_MS } from './session-codec.js';
export type { SessionClaims } from './session-codec.js';
export { ToolPins } from './pins/tool-pins.js';
export type {
  PinningMode,
  PinStatus,
  PinReview,
  PinEvent,
  PinEntry,
  ToolPinsOptions,
} from './pins/tool-pins.js';
export { createMemoryPinStore } from './pins/pin-store.js';
export type { PinStore, PinsDocument, ToolPin, PendingPin } from './pins/pin-store.js';
export { createFilePinStore, PinStoreError } from './pins/file-pin-store.js';
export { descriptionFindings } from './pins/description-findings.js';
export type { DescriptionFinding } from './pins/description-findings.js';
export { toolDefinitionHash } from './pins/tool-definition.js';
export {
  createFileUserTokenStore,
  createMemoryUserTokenStore,
  UserTokenSealer,
} from './auth/user-token-store.js';
export type { UserTokens, UserTokenStore } from './auth/user-token-store.js';
export { URL_ELICITATION_REQUIRED } from './auth/user-oauth.js';
