import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  isPlainObject,
  nearestNames,
  validateAgainstSchema,
  type JsonSchema,
} from '@toolwire/schema';
import schemaDocument from '../config.schema.json' with { type: 'json' };
import { ConfigError } from './errors.js';
import { expandEnv, joinPath, type UnsetVariable } from './expand-env.js';

/** The JSON Schema of `toolwire.config.json` (also shipped as `@toolwire/mcp/config.schema.json`). */
export const configJsonSchema: JsonSchema = schemaDocument as JsonSchema;

export type TransportKind = 'stdio' | 'http' | 'sse';
export type ProtocolMode = 'auto' | 'legacy' | 'modern';

export interface McpServerConfig {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  transport?: 'stdio' | 'http' | 'sse' | 'streamable-http' | 'streamableHttp';
  type?: 'stdio' | 'http' | 'sse' | 'streamable-http' | 'streamableHttp';
  enabled?: boolean;
  disabled?: boolean;
  protocol?: ProtocolMode;
  timeoutMs?: number;
  connectTimeoutMs?: number;
  refreshIntervalSeconds?: number;
  priority?: number;
  prefix?: string;
  description?: string;
  include?: string[];
  exclude?: string[];
  /** OAuth 2.1 for a remote server (`url`): tokens are obtained, stored and refreshed by the registry. */
  auth?: McpOAuthConfig;
}

/**
 * `mcpServers.<name>.auth`: OAuth 2.1 authorization code flow with PKCE. Without `clientId` the
 * client registers itself (dynamic client registration); with it, the client is pre-registered.
 */
export interface McpOAuthConfig {
  type: 'oauth';
  /**
   * `authorization_code` (default: a user authorizes, PKCE) or `client_credentials` (machine to
   * machine: no user step; needs `clientId` and `clientSecret`).
   */
  grant?: 'authorization_code' | 'client_credentials';
  clientId?: string;
  /** Only with `clientId` (a confidential pre-registered client). */
  clientSecret?: string;
  /** Scopes to ask for when the server does not say which it needs. */
  scopes?: string[];
  /** The redirect URI (default `http://127.0.0.1:33418/callback`, served while authorizing). */
  redirectUrl?: string;
}

export type NativeToolName = 'hash' | 'time' | 'calculate';

export interface NamespaceConfig {
  strategy?: 'prefix' | 'flat' | 'custom';
  separator?: string;
  maxLength?: number;
  aliases?: Record<string, string>;
  priority?: string[];
}

export interface ToolwireConfig {
  $schema?: string;
  mcpServers?: Record<string, McpServerConfig>;
  nativeTools?: NativeToolName[];
  namespace?: NamespaceConfig;
  gateway?: { mode?: 'tools' | 'gateway' };
  codeMode?: { enabled?: boolean; excludedTools?: string[] };
  policy?: {
    allow?: string[];
    block?: string[];
    rateLimit?: { perMinute?: number; perTool?: Record<string, number> };
    timeoutMs?: number;
  };
  auth?: { tokens?: Array<{ token: string; client?: string; allow?: string[] }> };
  cache?: { ttlSeconds?: number; maxEntries?: number; tools?: string[] };
  redis?: string;
  chat?: {
    provider?: 'openai' | 'anthropic' | 'ollama' | 'xai';
    baseUrl?: string;
    apiKey?: string;
    model?: string;
  };
}

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
    try {
      raw = JSON.parse(stripJsonComments(text));
    } catch (error) {
      throw new ConfigError({
        path: '',
        problem: `not valid JSON (${(error as Error).message})`,
        source: label,
        cause: error,
      });
    }
    baseDir ??= dirname(resolve(source));
  }
  if (!isPlainObject(raw))
    throw new ConfigError({
      path: '',
      problem: 'must be a JSON object',
      ...(label ? { source: label } : {}),
    });

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

  checkServerEntries(expanded, label);
  const result = validateAgainstSchema(configJsonSchema, expanded);
  if (!result.success) {
    const issue = pickIssue(result.issues);
    const path = pointerToPath(issue.pointer);
    let problem = issue.message;
    if (issue.message === 'is not an allowed property') {
      const key = path.split(/[.[]/).pop() ?? '';
      const allowed = allowedKeysAt(issue.pointer);
      const near = nearestNames(key, allowed);
      problem = `unknown key${near.length > 0 ? ` (did you mean "${near[0]}"?)` : allowed.length > 0 ? ` (allowed: ${allowed.join(', ')})` : ''}`;
    }
    throw new ConfigError({ path, problem, ...(label ? { source: label } : {}) });
  }
  const config = expanded as ToolwireConfig;
  if (baseDir !== undefined && config.mcpServers) {
    for (const server of Object.values(config.mcpServers)) {
      if (server.cwd !== undefined) server.cwd = resolve(baseDir, server.cwd);
    }
  }
  return config;
}

/** Server entries need `command` or `url`; said here in words instead of an anyOf error. */
function checkServerEntries(config: Record<string, unknown>, label: string | undefined): void {
  const servers = config.mcpServers;
  if (!isPlainObject(servers)) return;
  for (const [name, entry] of Object.entries(servers)) {
    const path = joinPath('mcpServers', name);
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
      throw new ConfigError({
        path,
        problem: 'server names must be 1-64 characters of A-Z a-z 0-9 _ . -',
        ...(label ? { source: label } : {}),
      });
    }
    if (!isPlainObject(entry))
      throw new ConfigError({
        path,
        problem: 'must be an object',
        ...(label ? { source: label } : {}),
      });
    if (entry.command === undefined && entry.url === undefined) {
      throw new ConfigError({
        path,
        problem: 'needs "command" (a stdio server) or "url" (a remote server)',
        ...(label ? { source: label } : {}),
      });
    }
    if (entry.command !== undefined && entry.url !== undefined) {
      throw new ConfigError({
        path,
        problem: 'has both "command" and "url"; keep one',
        ...(label ? { source: label } : {}),
      });
    }
    if (isPlainObject(entry.auth) && entry.command !== undefined) {
      throw new ConfigError({
        path: joinPath(path, 'auth'),
        problem:
          'OAuth applies to remote servers ("url"); a stdio server gets credentials through "env"',
        ...(label ? { source: label } : {}),
      });
    }
    if (
      isPlainObject(entry.auth) &&
      entry.auth.clientSecret !== undefined &&
      entry.auth.clientId === undefined
    ) {
      throw new ConfigError({
        path: joinPath(joinPath(path, 'auth'), 'clientSecret'),
        problem: 'needs "clientId" (a client secret belongs to a pre-registered client)',
        ...(label ? { source: label } : {}),
      });
    }
    if (
      isPlainObject(entry.auth) &&
      entry.auth.grant === 'client_credentials' &&
      (entry.auth.clientId === undefined || entry.auth.clientSecret === undefined)
    ) {
      throw new ConfigError({
        path: joinPath(joinPath(path, 'auth'), 'grant'),
        problem: 'client_credentials needs "clientId" and "clientSecret" (a pre-registered client)',
        ...(label ? { source: label } : {}),
      });
    }
  }
}

function pickIssue(issues: readonly { pointer: string; message: string }[]): {
  pointer: string;
  message: string;
} {
  // The deepest issue is the most specific one (anyOf/oneOf wrappers report at the parent).
  return (
    [...issues].sort((a, b) => b.pointer.split('/').length - a.pointer.split('/').length)[0] ?? {
      pointer: '',
      message: 'is invalid',
    }
  );
}

/** `/mcpServers/fs/args/1` -> `mcpServers.fs.args[1]`. */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  const segments = pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  let path = '';
  for (const segment of segments)
    path = /^\d+$/.test(segment) ? joinPath(path, Number(segment)) : joinPath(path, segment);
  return path;
}

function allowedKeysAt(pointer: string): string[] {
  const segments = pointer.slice(1).split('/').slice(0, -1);
  let schema: JsonSchema | undefined = configJsonSchema;
  const defs = configJsonSchema.$defs ?? {};
  for (const segment of segments) {
    if (!schema) return [];
    if (schema.$ref?.startsWith('#/$defs/')) schema = defs[schema.$ref.slice('#/$defs/'.length)];
    if (!schema) return [];
    if (schema.properties && segment in schema.properties) schema = schema.properties[segment];
    else if (isPlainObject(schema.additionalProperties))
      schema = schema.additionalProperties as JsonSchema;
    else if (isPlainObject(schema.items)) schema = schema.items as JsonSchema;
    else return [];
  }
  if (schema?.$ref?.startsWith('#/$defs/')) schema = defs[schema.$ref.slice('#/$defs/'.length)];
  return Object.keys(schema?.properties ?? {});
}

/** Removes // and /* *\/ comments outside strings, so a JSONC file (as in the docs) loads. */
function stripJsonComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (inString) {
      out += char;
      if (char === '\\') out += text[++i] ?? '';
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') {
      inString = true;
      out += char;
    } else if (char === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (char === '/' && text[i + 1] === '*') {
      i += 2;
      while (i < text.length && !(text[i] === '*' && text[i + 1] === '/')) i++;
      i++;
    } else out += char;
  }
  return out;
}

/** Which transport a server entry uses. */
export function transportOf(server: McpServerConfig): TransportKind {
  const declared = server.transport ?? server.type;
  if (declared === 'sse') return 'sse';
  if (declared === 'stdio' || (declared === undefined && server.command !== undefined))
    return 'stdio';
  if (
    declared === undefined &&
    server.url !== undefined &&
    /\/sse\/?$/.test(new URL(server.url).pathname)
  )
    return 'sse';
  return 'http';
}

export function isServerEnabled(server: McpServerConfig): boolean {
  return server.enabled !== false && server.disabled !== true;
}
