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
export type { AuthToken } from '@toolwire/config';
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
} from './argument-rules.js';
export type { PathArgumentRule, ArgumentViolation } from './argument-rules.js';
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
export { Sessions } from './sessions.js';
export type { Session, SessionsOptions, Subscription, ListKind } from './sessions.js';
export { memorySessionStore, STREAM_EVENT_LOG_LENGTH } from './session-store.js';
export type { SessionStore, SessionRevocations, StreamEvent } from './session-store.js';
export { SessionCodec, SESSION_MAX_AGE_MS } from './session-codec.js';
export type { SessionClaims } from './session-codec.js';
