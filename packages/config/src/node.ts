// `@toolwire/config/node`: everything of the root entry plus `loadConfig`, which reads files and
// the process environment. The root entry imports no `node:` module.
export * from './index.js';
export { loadConfig } from './load-config.js';
export type { LoadConfigOptions } from './load-config.js';
