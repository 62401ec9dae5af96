export {
  toolwireConfigSchema,
  mcpServerConfigSchema,
  mcpOAuthConfigSchema,
  namespaceConfigSchema,
  authTokenConfigSchema,
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
export type { AuthToken } from './validate-config.js';
export { ConfigError } from './config-error.js';
export { expandEnv, joinPath } from './expand-env.js';
export type { UnsetVariable } from './expand-env.js';
