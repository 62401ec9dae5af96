import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  authJwtConfigSchema,
  passthroughAuthConfigSchema,
  pinningConfigSchema,
  tokenExchangeAuthConfigSchema,
  userTokensConfigSchema,
} from './identity-config-schema.js';

// The one definition of `toolwire.config.json`. The TypeScript types below are `Static<>` of these
// schemas and `config.schema.json` is generated from `toolwireConfigSchema` at build time
// (`pnpm --filter @toolwire/config generate`), so adding a key is one edit here (README.md).

/** A string enum as JSON Schema `enum` (TypeBox's union of literals gives less readable errors). */
function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
) {
  return Type.Unsafe<T[number]>({ enum: [...values], ...options });
}

/** An object whose keys are free (`additionalProperties`), as editors and mcp.json files expect. */
function Dictionary<T extends TSchema>(value: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<Record<string, Static<T>>>({
    type: 'object',
    additionalProperties: value,
    ...options,
  });
}

/** Glob patterns over exposed names (picomatch syntax, see `@toolwire/schema` `matchGlobs`). */
const Globs = Type.Array(Type.String({ minLength: 1 }));

const transports = ['stdio', 'http', 'sse', 'streamable-http', 'streamableHttp'] as const;

export const mcpOAuthConfigSchema = Type.Object(
  {
    type: Type.Literal('oauth'),
    grant: Type.Optional(
      StringEnum(['authorization_code', 'client_credentials'], {
        description:
          'authorization_code (default: a user authorizes, with PKCE) or client_credentials (machine to machine; needs clientId and clientSecret).',
      }),
    ),
    clientId: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'A pre-registered client; without it the client registers itself (dynamic client registration).',
      }),
    ),
    clientSecret: Type.Optional(
      Type.String({
        minLength: 1,
        description: "The pre-registered client's secret (confidential clients only).",
      }),
    ),
    scopes: Type.Optional(
      Type.Array(Type.String({ pattern: '^[^\\s]+$' }), {
        description: 'Scopes to request when the server does not name the ones it needs.',
      }),
    ),
    redirectUrl: Type.Optional(
      Type.String({
        pattern: '^https?://',
        description:
          'The redirect URI (default http://127.0.0.1:33418/callback, served on loopback while authorizing).',
      }),
    ),
    perUser: Type.Optional(
      Type.Boolean({
        description:
          "The gateway: each caller (an auth.jwt access token) authorizes this server for themselves, at its own authorization server; tokens are kept per user, encrypted (auth.userTokens). Tool discovery goes without a token (the server's headers).",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'OAuth 2.1 (authorization code + PKCE) for a remote server: discovery, dynamic client registration when there is no clientId, token storage and refresh.',
  },
);

/** `mcpServers.<name>.auth`: how the gateway authenticates to a remote server. */
const upstreamAuthConfigSchema = Type.Union(
  [mcpOAuthConfigSchema, passthroughAuthConfigSchema, tokenExchangeAuthConfigSchema],
  {
    description:
      "oauth: the gateway's own OAuth client; passthrough: the caller's token (when its audience allows); token-exchange: a token exchanged for the caller (RFC 8693).",
  },
);

export const mcpServerConfigSchema = Type.Object(
  {
    command: Type.Optional(
      Type.String({ minLength: 1, description: 'stdio: the program to spawn.' }),
    ),
    args: Type.Optional(Type.Array(Type.String())),
    env: Type.Optional(Dictionary(Type.String())),
    cwd: Type.Optional(Type.String()),
    url: Type.Optional(
      Type.String({
        pattern: '^https?://',
        description: 'Remote server: streamable HTTP, or legacy SSE.',
      }),
    ),
    headers: Type.Optional(Dictionary(Type.String())),
    transport: Type.Optional(
      StringEnum(transports, {
        description:
          'stdio | http (streamable HTTP) | sse (legacy HTTP+SSE). Default: stdio with `command`; with `url`, sse when the path ends in /sse, else http with a fallback to sse.',
      }),
    ),
    type: Type.Optional(
      StringEnum(transports, { description: 'Alias of `transport` used by some mcp.json files.' }),
    ),
    enabled: Type.Optional(Type.Boolean()),
    disabled: Type.Optional(
      Type.Boolean({
        description: 'Alias used by some mcp.json files; `disabled: true` equals `enabled: false`.',
      }),
    ),
    protocol: Type.Optional(
      StringEnum(['auto', 'legacy', 'modern'], {
        description:
          'Protocol negotiation: auto (probe server/discover, fall back to initialize; default), legacy (2025-11-25 initialize and sessions), modern (2026-07-28 only).',
      }),
    ),
    timeoutMs: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: "Default per-call timeout for this server's tools.",
      }),
    ),
    connectTimeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
    refreshIntervalSeconds: Type.Optional(
      Type.Number({
        minimum: 0,
        description: 'Re-list tools this often (0 = only on list_changed).',
      }),
    ),
    priority: Type.Optional(
      Type.Integer({ description: 'Higher wins a name collision (default 0).' }),
    ),
    prefix: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{0,64}$',
        description: 'Prefix used instead of the server name.',
      }),
    ),
    description: Type.Optional(Type.String()),
    include: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Only these tools (original names, globs).',
      }),
    ),
    exclude: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Hide these tools (original names, globs).',
      }),
    ),
    /**
     * How the gateway authenticates to a remote server (`url`): its own OAuth 2.1 client (`oauth`),
     * the caller's token (`passthrough`) or a token exchanged for the caller (`token-exchange`).
     */
    auth: Type.Optional(upstreamAuthConfigSchema),
    gateway: Type.Optional(
      Type.Boolean({
        description:
          'Overrides gateway.mode for this server: true puts its tools behind one gateway tool named after the server (list/describe/execute; connected on first use), false exposes them directly.',
      }),
    ),
  },
  {
    additionalProperties: false,
    anyOf: [{ required: ['command'] }, { required: ['url'] }],
  },
);

export const namespaceConfigSchema = Type.Object(
  {
    strategy: Type.Optional(
      StringEnum(['prefix', 'flat', 'custom'], {
        description:
          "prefix: <server><separator><tool> (default); flat: the tool's own name, prefixed only on a collision; custom: only aliased tools get a new name, the rest keep prefix names. Aliases apply under every strategy.",
      }),
    ),
    separator: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,8}$' })),
    maxLength: Type.Optional(Type.Integer({ minimum: 16, maximum: 128 })),
    aliases: Type.Optional(
      Dictionary(Type.String({ pattern: '^[A-Za-z0-9_-]{1,128}$' }), {
        description:
          'Exposed name (as the strategy would produce it, or <server>/<tool>) -> the name to expose instead.',
      }),
    ),
    priority: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'Server names, highest priority first: on a name collision the first keeps the name. Native tools always win.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** `policy.paths[]`: the path arguments of the matching tools must stay inside `roots`. */
export const pathRuleConfigSchema = Type.Object(
  {
    tools: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      description: 'Glob patterns over namespaced tool names, e.g. ["fs__*"].',
    }),
    arguments: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description:
          'Dotted argument keys holding paths, "*" for every array item. Default: every path argument of @modelcontextprotocol/server-filesystem\'s tools (path, paths.*, source, destination).',
      }),
    ),
    roots: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      description:
        "Directories the paths must stay in; relative ones resolve against the config file's directory.",
    }),
    relativeTo: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description:
          'Directories the upstream resolves relative paths against, in its order. Default for a server-filesystem upstream: its directory arguments; otherwise relative paths are refused.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** How much of a shared capacity one caller may hold at once, and how many of its requests wait. */
function shareConfigSchema(what: string, concurrent: string, queued: string) {
  return Type.Object(
    {
      concurrent: Type.Optional(
        Type.Integer({
          minimum: 1,
          description: `${what} one caller runs at once (default ${concurrent}).`,
        }),
      ),
      queued: Type.Optional(
        Type.Integer({
          minimum: 0,
          description: `${what} of one caller waiting for their turn (default ${queued}); one more is refused as a rate limit with retryAfterMs.`,
        }),
      ),
    },
    { additionalProperties: false },
  );
}

/**
 * What one caller (a token's client; `anonymous` without auth) may hold of the gateway at once, so
 * that no token takes more than its share: `policy.limits` for every caller, a token's own
 * `limits` over it. Refusals are rate-limit errors with `retryAfterMs`.
 */
export const callerLimitsConfigSchema = Type.Object(
  {
    sessions: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'Live 2025-era MCP sessions (initialized, not ended, used within the idle window) on one instance (default 256).',
      }),
    ),
    streams: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'Open server-to-client streams on one instance: GET streams of sessions, 2026-07-28 subscriptions, GET streams of /servers/<name>/mcp (default 32).',
      }),
    ),
    calls: Type.Optional(shareConfigSchema('Tool calls to upstreams', '32', '128')),
    runs: Type.Optional(
      shareConfigSchema('Code runs in the shared sandbox', 'half the sandbox pool', '16'),
    ),
    typeChecks: Type.Optional(
      shareConfigSchema('Type checks of code', 'half the type-check workers', '16'),
    ),
  },
  {
    additionalProperties: false,
    description:
      'What one caller (a token; "anonymous" without auth) may hold at once, so that none takes more than its share. Refusals are rate-limit errors with retryAfterMs.',
  },
);

export const authTokenConfigSchema = Type.Object(
  {
    token: Type.String({ minLength: 1 }),
    client: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'Name of the client in logs, metrics and rate limits (default: "token-<n>", its position from 1).',
      }),
    ),
    allow: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'What this token may list and reach: the patterns of policy.allow (tools and prompts by namespaced name, "resources:<server>"), plus the grants "execute_code" (run code anywhere) and "chat" (the chat endpoints). Absent: everything policy allows; [] grants nothing.',
      }),
    ),
    limits: Type.Optional(callerLimitsConfigSchema),
  },
  { additionalProperties: false },
);

// codeMode (seed 002): the top-level keys and `defaults` apply to every model; the first `models`
// entry whose `match` glob fits the model name overrides them (`resolveCodeModeSettings` in
// @toolwire/codemode).
const codeModeSettings = {
  enabled: Type.Optional(Type.Boolean({ description: 'Give the model execute_code.' })),
  excludedTools: Type.Optional(
    Type.Array(Type.String(), { description: 'Tools kept as direct tools beside execute_code.' }),
  ),
  pinnedTools: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Tools declared first in the execute_code description.',
    }),
  ),
};

/**
 * `codeMode.limits`: the sandbox limits of every script the gateway runs (`execute_code` on
 * `/mcp`, code mode on the chat endpoints, the dashboard's playground); the names of
 * `toolwire code run`'s flags.
 */
const codeModeLimitsConfigSchema = Type.Object(
  {
    timeoutMs: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'Longest a script may run, its tool calls included (default 30000); execute_code may ask for less with its own timeoutMs.',
      }),
    ),
    memoryMb: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Heap of the sandbox, in MB (default 64).' }),
    ),
    maxOutputKb: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'Console output kept, and the largest returned value, in KB (default 64 and 1024).',
      }),
    ),
    maxToolCalls: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Tool calls one script may make (default 256).' }),
    ),
  },
  { additionalProperties: false },
);

export const codeModeConfigSchema = Type.Object(
  {
    ...codeModeSettings,
    limits: Type.Optional(codeModeLimitsConfigSchema),
    defaults: Type.Optional(
      Type.Object(codeModeSettings, {
        additionalProperties: false,
        description: 'Code mode for every model (the keys beside it mean the same).',
      }),
    ),
    models: Type.Optional(
      Type.Array(
        Type.Object(
          {
            match: Type.String({
              minLength: 1,
              description: 'Glob over the model name, case-insensitive, e.g. "qwen*:3b".',
            }),
            ...codeModeSettings,
          },
          { additionalProperties: false },
        ),
        { description: 'Per model: the first entry whose match fits overrides the defaults.' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const toolwireConfigSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    mcpServers: Type.Optional(
      Dictionary(mcpServerConfigSchema, {
        description: "MCP servers by name. A name becomes the prefix of its tools' exposed names.",
        propertyNames: { pattern: '^[A-Za-z0-9_.-]{1,64}$' },
      }),
    ),
    nativeTools: Type.Optional(
      Type.Array(StringEnum(['hash', 'time', 'calculate']), {
        uniqueItems: true,
        description: 'Built-in tools to expose (default: hash, time, calculate).',
      }),
    ),
    namespace: Type.Optional(namespaceConfigSchema),
    gateway: Type.Optional(
      Type.Object(
        { mode: Type.Optional(StringEnum(['tools', 'gateway'])) },
        { additionalProperties: false },
      ),
    ),
    codeMode: Type.Optional(codeModeConfigSchema),
    policy: Type.Optional(
      Type.Object(
        {
          allow: Type.Optional(
            Type.Array(Type.String({ minLength: 1 }), {
              description:
                'Glob patterns over namespaced names: tools and prompts as <server><separator><name> (also when reached by an alias or through /servers/<name>/mcp), an upstream\'s resources and resource templates as "resources:<server>". Default ["*"].',
            }),
          ),
          block: Type.Optional(
            Type.Array(Type.String({ minLength: 1 }), {
              description:
                'Glob patterns refused whatever allow says; same spelling as allow (blocking a name blocks its alias).',
            }),
          ),
          paths: Type.Optional(
            Type.Array(pathRuleConfigSchema, {
              description:
                'Path rules: the path arguments of the matching tools must resolve (symlinks followed) inside one of the roots; "..", NUL, "~" and URL-encoded paths are refused.',
            }),
          ),
          rateLimit: Type.Optional(
            Type.Object(
              {
                perMinute: Type.Optional(Type.Integer({ minimum: 1 })),
                perTool: Type.Optional(Dictionary(Type.Integer({ minimum: 1 }))),
              },
              { additionalProperties: false },
            ),
          ),
          timeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
          limits: Type.Optional(callerLimitsConfigSchema),
          pinning: Type.Optional(pinningConfigSchema),
        },
        { additionalProperties: false },
      ),
    ),
    auth: Type.Optional(
      Type.Object(
        {
          tokens: Type.Optional(Type.Array(authTokenConfigSchema)),
          jwt: Type.Optional(authJwtConfigSchema),
          userTokens: Type.Optional(userTokensConfigSchema),
        },
        { additionalProperties: false },
      ),
    ),
    cache: Type.Optional(
      Type.Object(
        {
          ttlSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
          maxEntries: Type.Optional(Type.Integer({ minimum: 1 })),
          tools: Type.Optional(Globs),
          readOnlyTools: Type.Optional(
            Type.Boolean({
              description:
                'Also cache every tool annotated readOnlyHint (default false: only cache.tools are cached).',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    redis: Type.Optional(Type.String({ pattern: '^rediss?://' })),
    chat: Type.Optional(
      Type.Object(
        {
          provider: Type.Optional(
            StringEnum(['openai', 'openai-responses', 'anthropic', 'ollama', 'xai', 'google']),
          ),
          baseUrl: Type.Optional(Type.String()),
          apiKey: Type.Optional(Type.String()),
          model: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    $id: 'https://toolwire.dev/schemas/toolwire.config.json',
    title: 'Toolwire configuration (toolwire.config.json)',
    description:
      'MCP servers, native tools, naming, gateway mode, code mode, policy, auth, cache, redis and chat settings. A plain Claude Desktop / Cursor `mcpServers` file is valid as is. Every string may use ${VAR} or ${VAR:-default}.',
    additionalProperties: false,
  },
);

export type ToolwireConfig = Static<typeof toolwireConfigSchema>;
export type McpServerConfig = Static<typeof mcpServerConfigSchema>;
/**
 * `mcpServers.<name>.auth`: OAuth 2.1 authorization code flow with PKCE (or client_credentials).
 * Without `clientId` the client registers itself (dynamic client registration).
 */
export type McpOAuthConfig = Static<typeof mcpOAuthConfigSchema>;
export type NamespaceConfig = Static<typeof namespaceConfigSchema>;
export type AuthTokenConfig = Static<typeof authTokenConfigSchema>;
export type CallerLimitsConfig = Static<typeof callerLimitsConfigSchema>;
/** `mcpServers.<name>.auth`: `oauth`, `passthrough` or `token-exchange`. */
export type UpstreamAuthConfig = Static<typeof upstreamAuthConfigSchema>;
export type PathRuleConfig = Static<typeof pathRuleConfigSchema>;
export type CodeModeConfig = Static<typeof codeModeConfigSchema>;
export type CodeModeLimitsConfig = Static<typeof codeModeLimitsConfigSchema>;
export type NativeToolName = NonNullable<ToolwireConfig['nativeTools']>[number];
export type TransportKind = 'stdio' | 'http' | 'sse';
export type ProtocolMode = NonNullable<McpServerConfig['protocol']>;

/** The JSON document written to `config.schema.json` (draft 2020-12, no TypeBox symbols). */
export function configJsonSchemaDocument(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    ...(JSON.parse(JSON.stringify(toolwireConfigSchema)) as Record<string, unknown>),
  };
}
export {
  authJwtConfigSchema,
  passthroughAuthConfigSchema,
  pinningConfigSchema,
  tokenExchangeAuthConfigSchema,
  userTokensConfigSchema,
};
export type {
  AuthJwtConfig,
  PinningConfig,
  TokenExchangeAuthConfig,
} from './identity-config-schema.js';
