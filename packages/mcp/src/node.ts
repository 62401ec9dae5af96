// Everything of the root entry, plus what needs Node (processes, files, a loopback HTTP listener).
// `createRegistry` here wires Node's defaults into the root one.
export * from './index.js';
export { createRegistry } from './node-registry.js';
export type { CreateRegistryOptions, RegistryOAuthOptions } from './node-registry.js';
export { loadConfig } from '@toolwire/config/node';
export type { LoadConfigOptions } from '@toolwire/config/node';
export {
  embeddedDefaultConfig,
  ensureDemoFolder,
  serverEntry,
  toolwireCacheDir,
} from './default-config.js';
export type { EmbeddedDefaultConfigOptions, ResolveSpecifier } from './default-config.js';
export { ProcessTransport } from './stdio-transport.js';
export type { ProcessTransportOptions } from './stdio-transport.js';
export { FileOAuthTokenStore } from './file-oauth-token-store.js';
export { createLoopbackAuthorizationHandler } from './oauth-loopback-handler.js';
export type { LoopbackAuthorizationHandlerOptions } from './oauth-loopback-handler.js';
