export {
  startServer,
  DEFAULT_DRAIN_MS,
  DEFAULT_PORT,
  DEFAULT_CONFIG_FILE,
  SERVER_VERSION,
} from './start-server.js';
export type { StartServerOptions, RunningServer } from './start-server.js';
export type { Runtime } from './runtime.js';
export { embeddedDefaultConfig, ensureDemoFolder, toolwireCacheDir } from './default-config.js';
export { SessionCodec } from '@toolwire/forwarder';
export type { SessionClaims } from '@toolwire/forwarder';
export { parseServerArgs, runServerCli } from './server-cli.js';
export type { ServerArgs } from './server-cli.js';
export { approvePins, readPins, pinsFileOf, PINS_FILE } from './tool-pins.js';
