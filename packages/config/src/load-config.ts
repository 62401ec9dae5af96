import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isPlainObject } from '@toolwire/schema';
import type { ToolwireConfig } from './config-schema.js';
import { ConfigError } from './config-error.js';
import { expandEnv, type UnsetVariable } from './expand-env.js';
import { parseConfigText, validateConfig } from './validate-config.js';

export interface LoadConfigOptions {
  /** Variables for `${VAR}` expansion (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Directory that relative `cwd` values resolve against (default: the file's directory, or the process cwd). */
  baseDir?: string;
  /** Told about every `${VAR}` that was unset and had no default (it expands to ""). */
  onWarning?: (message: string) => void;
  /** Throw a ConfigError for an unset `${VAR}` without a default instead of warning. */
  strictEnv?: boolean;
}

/**
 * Reads, expands and validates a configuration. `source` is a path to a JSON file or an already
 * parsed object. A plain `mcpServers` file (Claude Desktop, Cursor) loads unchanged.
 * Throws `ConfigError` whose `path` names the offending value (`mcpServers.fs.args[1]`).
 */
export function loadConfig(
  source: string | object,
  options: LoadConfigOptions = {},
): ToolwireConfig {
  let raw: unknown = source;
  let label: string | undefined;
  let baseDir = options.baseDir;
  if (typeof source === 'string') {
    label = `in ${source}`;
    let text: string;
    try {
      text = readFileSync(source, 'utf8');
    } catch (error) {
      throw new ConfigError({
        path: '',
        problem: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
        source: label,
        cause: error,
      });
    }
    raw = parseConfigText(text, label);
    baseDir ??= dirname(resolve(source));
  }
  if (!isPlainObject(raw)) validateConfig(raw, label);

  const unset: UnsetVariable[] = [];
  const expanded = expandEnv(raw, options.env ?? process.env, unset) as Record<string, unknown>;
  for (const variable of unset) {
    if (options.strictEnv) {
      throw new ConfigError({
        path: variable.path,
        problem: `environment variable ${variable.name} is not set and has no default (use \${${variable.name}:-default})`,
        ...(label ? { source: label } : {}),
      });
    }
    options.onWarning?.(
      `config ${variable.path}: environment variable ${variable.name} is not set; using ""`,
    );
  }

  validateConfig(expanded, label);
  const config = expanded as ToolwireConfig;
  if (baseDir !== undefined && config.mcpServers) {
    for (const server of Object.values(config.mcpServers)) {
      if (server.cwd !== undefined) server.cwd = resolve(baseDir, server.cwd);
    }
  }
  if (baseDir !== undefined) {
    for (const rule of config.policy?.paths ?? []) {
      rule.roots = rule.roots.map((root) => resolve(baseDir, root));
      if (rule.relativeTo) rule.relativeTo = rule.relativeTo.map((dir) => resolve(baseDir, dir));
    }
  }
  return config;
}
