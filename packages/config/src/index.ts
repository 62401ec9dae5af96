export {
  toolwireConfigSchema,
  mcpServerConfigSchema,
  mcpOAuthConfigSchema,
  namespaceConfigSchema,
  authTokenConfigSchema,
  callerLimitsConfigSchema,
  authJwtConfigSchema,
  userTokensConfigSchema,
  pinningConfigSchema,
  passthroughAuthConfigSchema,
  tokenExchangeAuthConfigSchema,
  pathRuleConfigSchema,
  codeModeConfigSchema,
  configJsonSchemaDocument,
} from './config-schema.js';
export type {
  ToolwireConfig,
  McpServerConfig,
  McpOAuthConfig,
  NamespaceConfig,
  AuthTokenConfig,
  CallerLimitsConfig,
  AuthJwtConfig,
  PinningConfig,
  UpstreamAuthConfig,
  TokenExchangeAuthConfig,
  PathRuleConfig,
  CodeModeConfig,
  CodeModeLimitsConfig,
  NativeToolName,
  TransportKind,
  ProtocolMode,
} from './config-schema.js';
export {
  parseConfigText,
  validateConfig,
  authTokensOf,
  configJsonSchema,
  pointerToPath,
  transportOf,
  isServerEnabled,
} from './validate-config.js';
export type { AuthToken, CallerIdentity } from './validate-config.js';
export { ConfigError } from './config-error.js';
export { expandEnv, joinPath } from './expand-env.js';
export type { UnsetVariable } from './expand-env.js';
