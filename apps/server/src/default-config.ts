import { createRequire } from 'node:module';
import {
  embeddedDefaultConfig as sharedDefaultConfig,
  toolwireCacheDir,
  type ToolwireConfig,
} from '@toolwire/mcp/node';

export { ensureDemoFolder, toolwireCacheDir } from '@toolwire/mcp/node';

const { resolve } = createRequire(import.meta.url);

/**
 * The configuration used when there is no config file (`@toolwire/mcp`'s embedded default, the
 * same as `toolwire`'s): the native tools plus the `fs` and `memory` MCP servers shipped as this
 * app's dependencies, started with this very Node (never `npx`: no network, no global install).
 */
export function embeddedDefaultConfig(cacheDir = toolwireCacheDir()): ToolwireConfig {
  return sharedDefaultConfig({ resolve, cacheDir });
}
