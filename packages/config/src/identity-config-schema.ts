import { Type, type Static } from '@sinclair/typebox';

// Who is calling and who the upstreams see: the `auth.jwt` resource server, the upstream identity
// modes of `mcpServers.<name>.auth` beside `oauth`, and `policy.pinning`. Part of the one
// definition of `toolwire.config.json` (config-schema.ts assembles it).

/** A string enum as JSON Schema `enum`. */
function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
) {
  return Type.Unsafe<T[number]>({ enum: [...values], ...options });
}

export const passthroughAuthConfigSchema = Type.Object(
  {
    type: Type.Literal('passthrough'),
    audience: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "The audience the caller's token must name for it to be passed on (default: the server's url).",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "The caller's own access token (auth.jwt) is passed to this server, but only when the token's audience names it as well as the gateway; a call with a token that does not is refused.",
  },
);

export const tokenExchangeAuthConfigSchema = Type.Object(
  {
    type: Type.Literal('token-exchange'),
    audience: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "The resource the exchanged token is for, sent as `resource` and `audience` (default: the server's url).",
      }),
    ),
    scopes: Type.Optional(
      Type.Array(Type.String({ pattern: '^[^\\s]+$' }), {
        description: 'Scopes to ask for (default: none named; the server decides).',
      }),
    ),
    clientId: Type.String({
      minLength: 1,
      description: "The gateway's client at the authorization server (auth.jwt.issuer).",
    }),
    clientSecret: Type.Optional(
      Type.String({ minLength: 1, description: "The client's secret (client_secret_basic)." }),
    ),
    tokenEndpoint: Type.Optional(
      Type.String({
        pattern: '^https?://',
        description: "Default: the token_endpoint of auth.jwt.issuer's metadata.",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "RFC 8693 token exchange: for each caller the gateway trades the caller's access token at the authorization server for one whose audience is this server (cached until it expires).",
  },
);

/** `auth.jwt`: the gateway as an OAuth 2.1 resource server (RFC 9728, RFC 9068 access tokens). */
export const authJwtConfigSchema = Type.Object(
  {
    issuer: Type.String({
      pattern: '^https?://',
      description:
        "The authorization server: tokens' `iss` must equal it; its metadata (/.well-known/oauth-authorization-server or openid-configuration) names the JWKS.",
    }),
    jwksUri: Type.Optional(
      Type.String({
        pattern: '^https?://',
        description: "The issuer's signing keys, when its metadata is not to be read.",
      }),
    ),
    audience: Type.String({
      pattern: '^https?://',
      description:
        "The gateway's own resource URI (e.g. https://gw.example.com/mcp): tokens' `aud` must name it; the protected-resource metadata gives it as `resource`.",
    }),
    scopes: Type.Optional(
      Type.Unsafe<Record<string, string[]>>({
        type: 'object',
        additionalProperties: Type.Array(Type.String()),
        description:
          "Scope -> grants (the patterns of auth.tokens[].allow). A token is granted the union of its scopes' patterns; absent: every valid token gets what policy allows.",
      }),
    ),
    clockSkewSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 300,
        description: 'Tolerance for exp, nbf and iat (default 30).',
      }),
    ),
    introspection: Type.Optional(
      Type.Object(
        {
          clientId: Type.String({ minLength: 1 }),
          clientSecret: Type.String({ minLength: 1 }),
          endpoint: Type.Optional(
            Type.String({
              pattern: '^https?://',
              description: "Default: the issuer metadata's introspection_endpoint.",
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            'Opaque (non-JWT) access tokens are checked by RFC 7662 introspection with this client; answers are cached for at most a minute.',
        },
      ),
    ),
    dashboard: Type.Optional(
      Type.Object(
        {
          clientId: Type.Optional(
            Type.String({
              minLength: 1,
              description:
                "The dashboard's client at the issuer (redirect URI <gateway>/auth/callback); without it the gateway registers one (dynamic client registration).",
            }),
          ),
          clientSecret: Type.Optional(Type.String({ minLength: 1 })),
          scopes: Type.Optional(
            Type.Array(Type.String({ pattern: '^[^\\s]+$' }), {
              description:
                'Scopes to ask for at sign-in (default: every scope of auth.jwt.scopes).',
            }),
          ),
        },
        {
          additionalProperties: false,
          description: 'Dashboard sign-in at the issuer (authorization code with PKCE).',
        },
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      'OAuth 2.1 access tokens (JWT) from an authorization server, beside auth.tokens: signature (JWKS), iss, aud, exp/nbf checked; the subject names the client.',
  },
);

/** `policy.pinning`: tool definitions pinned when first seen; a changed one waits for approval. */
export const pinningConfigSchema = Type.Object(
  {
    mode: Type.Optional(
      StringEnum(['hold', 'warn', 'off'], {
        description:
          'hold: a tool whose definition changed since it was pinned is neither listed nor callable until approved (toolwire tools approve); warn (default): it is served, flagged on the dashboard and in the log; off: no pins.',
      }),
    ),
    file: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "Where pins are kept (default: toolwire.pins.json beside the config file, or in the cache directory; with redis, in Redis). Relative to the config file's directory.",
      }),
    ),
  },
  { additionalProperties: false },
);
/** `auth.userTokens`: where the tokens of per-user OAuth upstreams are kept, and their key. */
export const userTokensConfigSchema = Type.Object(
  {
    encryptionKey: Type.String({
      minLength: 16,
      description:
        'The secret the tokens are encrypted with (AES-256-GCM; any string of 16 or more characters, e.g. ${TOOLWIRE_TOKEN_KEY}). Every instance of a fleet needs the same one.',
    }),
    file: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "Where they are kept (default: toolwire.user-tokens.json beside the config, or in the cache directory; with redis, in Redis). Relative to the config file's directory.",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Tokens of mcpServers.<name>.auth with perUser: one per user and upstream, encrypted at rest.',
  },
);

export type AuthJwtConfig = Static<typeof authJwtConfigSchema>;
export type PinningConfig = Static<typeof pinningConfigSchema>;
export type TokenExchangeAuthConfig = Static<typeof tokenExchangeAuthConfigSchema>;
