import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig, type ToolwireConfig } from '@toolwire/mcp/node';
import { embeddedDefaultConfig } from './default-config.js';

const DEFAULT_CONFIG_FILE = 'toolwire.config.json';

export interface ResolvedConfig {
  config: ToolwireConfig;
  /** The file it came from, or `undefined` for the embedded default. */
  file: string | undefined;
}

/**
 * `--config FILE`, else `./toolwire.config.json` when present, else the embedded default.
 * A bad file throws `ConfigError` naming the JSON path.
 */
export function resolveConfig(options: {
  configFile?: string;
  cwd: string;
  onWarning?: (message: string) => void;
}): ResolvedConfig {
  const warn = options.onWarning ?? (() => {});
  if (options.configFile !== undefined) {
    const file = resolve(options.cwd, options.configFile);
    return { config: loadConfig(file, { onWarning: warn }), file };
  }
  const local = resolve(options.cwd, DEFAULT_CONFIG_FILE);
  if (existsSync(local)) return { config: loadConfig(local, { onWarning: warn }), file: local };
  return { config: loadConfig(embeddedDefaultConfig(), { onWarning: warn }), file: undefined };
}
