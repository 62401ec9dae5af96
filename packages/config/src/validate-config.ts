import {
  isPlainObject,
  nearestNames,
  validateAgainstSchema,
  type JsonSchema,
} from '@toolwire/schema';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import {
  configJsonSchemaDocument,
  mcpOAuthConfigSchema,
  passthroughAuthConfigSchema,
  tokenExchangeAuthConfigSchema,
  type AuthTokenConfig,
  type McpServerConfig,
  type ToolwireConfig,
  type TransportKind,
} from './config-schema.js';
import { ConfigError } from './config-error.js';
import { joinPath } from './expand-env.js';

/** The JSON Schema of `toolwire.config.json` (also shipped as `@toolwire/config/config.schema.json`). */
export const configJsonSchema: JsonSchema = configJsonSchemaDocument() as JsonSchema;

/**
 * JSONC (comments and trailing commas, as in the docs) to a value. `source` names the file in the
 * error, which gives the line and column.
 */
export function parseConfigText(text: string, source?: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, {
    allowTrailingComma: true,
    disallowComments: false,
  });
  const first = errors[0];
  if (first) {
    const before = text.slice(0, first.offset).split('\n');
    throw new ConfigError({
      path: '',
      problem: `not valid JSON: ${printParseErrorCode(first.error)} at line ${before.length}, column ${before.at(-1)!.length + 1}`,
      ...(source ? { source } : {}),
    });
  }
  return value;
}

/**
 * Checks an already parsed (and expanded) configuration against the schema and the rules a schema
 * cannot say well; returns it typed. Throws `ConfigError` naming the dotted path.
 */
export function validateConfig(value: unknown, source?: string): ToolwireConfig {
  if (!isPlainObject(value))
    throw new ConfigError({
      path: '',
      problem: 'must be a JSON object',
      ...(source ? { source } : {}),
    });
  checkSemantics(value, source);
  const result = validateAgainstSchema(configJsonSchema, value);
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
    throw new ConfigError({ path, problem, ...(source ? { source } : {}) });
  }
  return value as ToolwireConfig;
}

/** An `auth.tokens` entry with its client name filled in (`token-<n>` when the entry has none). */
export interface AuthToken extends AuthTokenConfig {
  client: string;
  /**
   * Set for a caller authenticated by an access token of `auth.jwt` (its `client` is the token's
   * subject and its `allow` the union of its scopes' grants); absent for `auth.tokens` entries.
   */
  identity?: CallerIdentity;
}

/** Who an access token of `auth.jwt` was issued to, as the gateway checked it. */
export interface CallerIdentity {
  kind: 'jwt' | 'introspection';
  issuer: string;
  subject: string;
  /** Every audience the token names (the gateway's among them). */
  audience: string[];
  scopes: string[];
  /** When the token expires (ms since the epoch). */
  expiresAt?: number;
  /** The OAuth client the token was issued to (`client_id`), when it says. */
  clientId?: string;
}

/** The branch schemas of `mcpServers.<name>.auth`, by `type`. */
const UPSTREAM_AUTH_SCHEMAS: Record<string, JsonSchema> = {
  oauth: mcpOAuthConfigSchema as unknown as JsonSchema,
  passthrough: passthroughAuthConfigSchema as unknown as JsonSchema,
  'token-exchange': tokenExchangeAuthConfigSchema as unknown as JsonSchema,
};

/**
 * `mcpServers.<name>.auth` checked against the branch its `type` names, so that an error names
 * the key at fault instead of every branch of the union.
 */
function checkUpstreamAuth(
  config: Record<string, unknown>,
  entry: Record<string, unknown>,
  path: string,
  label: string | undefined,
): void {
  const auth = entry.auth;
  if (!isPlainObject(auth)) return;
  const at = joinPath(path, 'auth');
  const fail = (where: string, problem: string): never => {
    throw new ConfigError({ path: where, problem, ...(label ? { source: label } : {}) });
  };
  const schema = typeof auth.type === 'string' ? UPSTREAM_AUTH_SCHEMAS[auth.type] : undefined;
  if (!schema)
    fail(joinPath(at, 'type'), `must be one of ${Object.keys(UPSTREAM_AUTH_SCHEMAS).join(', ')}`);
  const result = validateAgainstSchema(JSON.parse(JSON.stringify(schema)) as JsonSchema, auth);
  if (!result.success) {
    const issue = pickIssue(result.issues);
    const where = `${at}${issue.pointer === '' ? '' : pointerToPath(issue.pointer).replace(/^(?!\[)/, '.')}`;
    if (issue.message === 'is not an allowed property') {
      const key = where.split(/[.[]/).pop() ?? '';
      const allowed = Object.keys((schema as { properties?: object }).properties ?? {});
      const near = nearestNames(key, allowed);
      fail(where, `unknown key${near.length > 0 ? ` (did you mean "${near[0]}"?)` : ''}`);
    }
    fail(where, issue.message);
  }
  if (entry.command !== undefined)
    fail(at, 'applies to remote servers ("url"); a stdio server gets credentials through "env"');
  if (auth.type === 'oauth') {
    if (auth.perUser !== true) return;
    const users = isPlainObject(config.auth) ? config.auth : {};
    if (!isPlainObject(users.jwt))
      fail(joinPath(at, 'perUser'), 'needs auth.jwt (the users whose tokens are kept)');
    if (!isPlainObject(users.userTokens))
      fail(
        joinPath(at, 'perUser'),
        "needs auth.userTokens.encryptionKey (users' tokens are kept encrypted)",
      );
    return;
  }
  // The caller's identity travels per request: over the lean HTTP channel, not legacy SSE.
  if (entry.transport === 'sse' || entry.type === 'sse')
    fail(at, `"${String(auth.type)}" needs a streamable HTTP server (not transport "sse")`);
  const jwt = isPlainObject(config.auth) ? config.auth.jwt : undefined;
  if (!isPlainObject(jwt))
    fail(at, `"${String(auth.type)}" needs auth.jwt (the callers' access tokens)`);
}

/** The `auth.tokens` of a config, each with a client name; empty without `auth`. */
export function authTokensOf(config: ToolwireConfig): AuthToken[] {
  return (config.auth?.tokens ?? []).map((entry, index) => ({
    ...entry,
    client: entry.client ?? `token-${index + 1}`,
  }));
}

/** Rules said here in words instead of a schema error (anyOf, dependencies, uniqueness). */
function checkSemantics(config: Record<string, unknown>, label: string | undefined): void {
  if (isPlainObject(config.auth) && Array.isArray(config.auth.tokens)) {
    const seen = new Set<unknown>();
    config.auth.tokens.forEach((entry: unknown, index) => {
      if (!isPlainObject(entry) || typeof entry.token !== 'string') return;
      if (seen.has(entry.token))
        throw new ConfigError({
          path: `auth.tokens[${index}].token`,
          problem: 'duplicate token (each token names one client)',
          ...(label ? { source: label } : {}),
        });
      seen.add(entry.token);
    });
  }
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
    checkUpstreamAuth(config, entry, path, label);
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
  for (const segment of segments) {
    if (!schema) return [];
    if (schema.properties && segment in schema.properties) schema = schema.properties[segment];
    else if (isPlainObject(schema.additionalProperties))
      schema = schema.additionalProperties as JsonSchema;
    else if (isPlainObject(schema.items)) schema = schema.items as JsonSchema;
    else return [];
  }
  return Object.keys(schema?.properties ?? {});
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
