// The root entry runs anywhere (no node: imports; a test checks): processes, files and the loopback
// OAuth listener are in `@toolwire/mcp/node`, which also wires them into `createRegistry`.
// The configuration lives in @toolwire/config; re-exported so existing imports keep working.
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
export { ConfigError, ServerUnavailableError, ToolCallProtocolError } from './errors.js';
export { createRegistry } from './registry.js';
export type {
  Registry,
  RegistryTool,
  ServerInfo,
  CallToolOptions,
  CreateRegistryOptions,
  RegistryOAuthOptions,
  ListChangedEvent,
  ToolStatus,
  ToolSearchHit,
  ToolCache,
  ServerStatus,
  ServerRequestHandlers,
  StdioTransport,
  StdioTransportFactory,
  StdioTransportOptions,
} from './registry-types.js';
export type { TaskCallSettings, ToolTask } from './connection/task-call.js';
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
export {
  OAuthSession,
  OAuthAuthorizationError,
  DEFAULT_OAUTH_REDIRECT_URL,
} from './oauth-session.js';
export type { OAuthSessionOptions } from './oauth-session.js';
export { createHeadlessAuthorizationHandler } from './oauth-handlers.js';
export type {
  AuthorizationHandler,
  AuthorizationRequest,
  HeadlessAuthorizationHandlerOptions,
} from './oauth-handlers.js';
export { MemoryOAuthTokenStore } from './oauth-token-store.js';
export type { OAuthTokenStore, OAuthCredentials } from './oauth-token-store.js';
export { stderrLogger } from './logger.js';
export type { Logger } from './logger.js';
