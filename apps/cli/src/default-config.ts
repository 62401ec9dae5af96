import { createRequire } from 'node:module';
import {
  embeddedDefaultConfig as sharedDefaultConfig,
  type ToolwireConfig,
} from '@toolwire/mcp/node';

export { toolwireCacheDir } from '@toolwire/mcp/node';

const { resolve } = createRequire(import.meta.url);

/**
 * The configuration used when there is no config file (`@toolwire/mcp`'s embedded default): the
 * native tools plus the `fs` and `memory` MCP servers shipped as the CLI's own dependencies,
 * started with this very Node (never `npx`, so no network and no global install is needed).
 */
export function embeddedDefaultConfig(): ToolwireConfig {
  return sharedDefaultConfig({ resolve });
}
