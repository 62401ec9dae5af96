// The configuration lives in @toolwire/config; re-exported so existing imports keep working.
export { loadConfig } from '@toolwire/config/node';
export type { LoadConfigOptions } from '@toolwire/config/node';
export {
  configJsonSchema,
  transportOf,
  isServerEnabled,
  pointerToPath,
  expandEnv,
} from '@toolwire/config';
export type {
  ToolwireConfig,
  McpServerConfig,
  NamespaceConfig,
  NativeToolName,
  PathRuleConfig,
  McpOAuthConfig,
  TransportKind,
  ProtocolMode,
  UnsetVariable,
} from '@toolwire/config';
export {
  embeddedDefaultConfig,
  ensureDemoFolder,
  serverEntry,
  toolwireCacheDir,
} from './default-config.js';
export type { EmbeddedDefaultConfigOptions, ResolveSpecifier } from './default-config.js';
export { ConfigError, ServerUnavailableError, ToolCallProtocolError } from './errors.js';
export { createRegistry } from './registry.js';
export type {
  Registry,
  RegistryTool,
  ServerInfo,
  CallToolOptions,
  CreateRegistryOptions,
  ListChangedEvent,
  ToolStatus,
} from './registry.js';
export type { ServerStatus, ServerRequestHandlers } from './server-connection.js';
export {
  assignToolNames,
  fitName,
  withHashSuffix,
  DEFAULT_SEPARATOR,
  DEFAULT_MAX_LENGTH,
} from './naming.js';
export type { NamingEntry, NamingOptions, NamingResult, NamingStrategy } from './naming.js';
export {
  nativeTools,
  createNativeTools,
  hashTool,
  timeTool,
  calculateTool,
} from './native-tools.js';
export { evaluateExpression, ExpressionError } from './calculate.js';
/** @deprecated Use `toolResultFromMcp` from `@toolwire/schema` (the one MCP result mapping). */
export { toolResultFromMcp as toToolResult } from '@toolwire/schema';
export { createGatewayTools, SEARCH_TOOL_NAME } from './gateway-tools.js';
export { searchTools } from './search-tools.js';
export type { ToolSearchHit } from './search-tools.js';
export { ProcessTransport } from './stdio-transport.js';
export type { ProcessTransportOptions } from './stdio-transport.js';
export { createOAuthSessionFactory } from './oauth.js';
export type { RegistryOAuthOptions } from './oauth.js';
export {
  OAuthSession,
  OAuthAuthorizationError,
  DEFAULT_OAUTH_REDIRECT_URL,
} from './oauth-session.js';
export type { OAuthSessionOptions } from './oauth-session.js';
export {
  createLoopbackAuthorizationHandler,
  createHeadlessAuthorizationHandler,
} from './oauth-handlers.js';
export type {
  AuthorizationHandler,
  AuthorizationRequest,
  LoopbackAuthorizationHandlerOptions,
  HeadlessAuthorizationHandlerOptions,
} from './oauth-handlers.js';
export { FileOAuthTokenStore, MemoryOAuthTokenStore } from './oauth-token-store.js';
export type { OAuthTokenStore, OAuthCredentials } from './oauth-token-store.js';
export { stderrLogger } from './logger.js';
export type { Logger } from './logger.js';
