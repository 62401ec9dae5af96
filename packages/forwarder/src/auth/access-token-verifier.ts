import { createHash } from 'node:crypto';
import { errors, jwtVerify, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import { ToolwireError } from '@toolwire/schema';
import type { AuthJwtConfig, AuthToken, CallerIdentity } from '@toolwire/config';
import {
  AuthorizationServerError,
  discoverAuthorizationServer,
  type AuthorizationServerMetadata,
} from './authorization-server.js';
import { JwksCache, type JwksCacheOptions } from './jwks-cache.js';
import { introspectToken } from './token-introspection.js';

/** Why an access token was refused. */
export type InvalidTokenReason =
  | 'malformed'
  | 'algorithm'
  | 'unknown-key'
  | 'signature'
  | 'issuer'
  | 'audience'
  | 'expired'
  | 'not-yet-valid'
  | 'claims'
  | 'inactive';

/** A bearer token that is no valid access token of `auth.jwt` (answered 401 `invalid_token`). */
export class InvalidAccessTokenError extends ToolwireError {
  readonly reason: InvalidTokenReason;
  constructor(reason: InvalidTokenReason, message: string, cause?: unknown) {
    super('invalid_token', { message, cause });
    this.name = 'InvalidAccessTokenError';
    this.reason = reason;
  }
}

/**
 * Signature algorithms accepted: asymmetric only. `none` is never accepted, and an HMAC `alg`
 * (which would use a public key as the shared secret) is refused before any key is looked at.
 */
export const ACCEPTED_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

export interface AccessTokenVerifierOptions {
  /** See `JwksCacheOptions` (tests shorten the cool-down; the gateway logs fetches). */
  jwks?: Pick<JwksCacheOptions, 'unknownKeyCooldownMs' | 'maxAgeMs' | 'onFetch'>;
}

/** Checks the access tokens of `auth.jwt` (and, with `introspection`, opaque ones). */
export interface AccessTokenVerifier {
  readonly config: AuthJwtConfig;
  /**
   * The caller a token stands for: `client` its subject, `allow` the union of its scopes' grants
   * (absent without `auth.jwt.scopes`), `identity` what was checked. Rejects with
   * `InvalidAccessTokenError`, or `AuthorizationServerError` when the issuer cannot be read.
   */
  verify(token: string): Promise<AuthToken>;
  /** The issuer's metadata, read once. */
  metadata(): Promise<AuthorizationServerMetadata>;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** How long a checked token is remembered at most (its expiry bounds it too). */
const REMEMBER_MS = 60_000;

export function createAccessTokenVerifier(
  config: AuthJwtConfig,
  options: AccessTokenVerifierOptions = {},
): AccessTokenVerifier {
  const skew = config.clockSkewSeconds ?? 30;
  const metadata = metadataReader(config.issuer);
  const jwks = new JwksCache({
    ...options.jwks,
    url: async () => {
      if (config.jwksUri) return config.jwksUri;
      const { jwks_uri: uri } = await metadata();
      if (typeof uri !== 'string')
        throw new AuthorizationServerError({
          url: config.issuer,
          message: `the metadata of ${config.issuer} names no jwks_uri (set auth.jwt.jwksUri)`,
        });
      return uri;
    },
  });
  // Checked tokens, by their hash: a client sends the same token many times.
  const remembered = new LRUCache<string, AuthToken>({ max: 10_000 });

  async function verifyJwt(token: string): Promise<AuthToken> {
    try {
      const { payload } = await jwtVerify(token, jwks.getKey, {
        issuer: config.issuer,
        audience: config.audience,
        clockTolerance: skew,
        algorithms: ACCEPTED_ALGORITHMS,
        requiredClaims: ['exp'],
      });
      return callerOf(payload, 'jwt', config);
    } catch (error) {
      throw refusalOf(error);
    }
  }

  async function introspect(token: string): Promise<AuthToken> {
    const endpoint = config.introspection!.endpoint ?? (await metadata()).introspection_endpoint;
    if (typeof endpoint !== 'string')
      throw new AuthorizationServerError({
        url: config.issuer,
        message: `the metadata of ${config.issuer} names no introspection_endpoint (set auth.jwt.introspection.endpoint)`,
      });
    return callerOf(await introspectToken(token, endpoint, config), 'introspection', config);
  }

  return {
    config,
    metadata,
    async verify(token) {
      const key = createHash('sha256').update(token).digest('base64url');
      const known = remembered.get(key);
      if (known) return known;
      let caller: AuthToken;
      if (JWT_SHAPE.test(token)) caller = await verifyJwt(token);
      else if (config.introspection) caller = await introspect(token);
      else
        throw new InvalidAccessTokenError(
          'malformed',
          'the bearer token is neither a known token (auth.tokens) nor a JWT access token (auth.jwt)',
        );
      caller.token = token;
      const expiresAt = caller.identity?.expiresAt;
      const ttl = Math.min(
        REMEMBER_MS,
        expiresAt === undefined ? REMEMBER_MS : expiresAt - Date.now(),
      );
      if (ttl > 0) remembered.set(key, caller, { ttl });
      return caller;
    },
  };
}

/** The caller a checked token stands for: its subject, grants and identity. */
function callerOf(
  payload: JWTPayload,
  kind: CallerIdentity['kind'],
  config: AuthJwtConfig,
): AuthToken {
  const clientId = typeof payload.client_id === 'string' ? payload.client_id : undefined;
  const subject = typeof payload.sub === 'string' && payload.sub !== '' ? payload.sub : clientId;
  if (subject === undefined)
    throw new InvalidAccessTokenError('claims', 'the access token names no subject (sub)');
  const scopes = scopesOf(payload);
  const audience =
    typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud : [];
  const identity: CallerIdentity = {
    kind,
    issuer: config.issuer,
    subject,
    audience,
    scopes,
    ...(typeof payload.exp === 'number' ? { expiresAt: payload.exp * 1000 } : {}),
    ...(clientId ? { clientId } : {}),
  };
  return {
    token: '',
    client: subject,
    ...(config.scopes ? { allow: grantsOf(config.scopes, scopes) } : {}),
    identity,
  };
}

/** The issuer's metadata, read once; a failed read is tried again after 5 s, not per request. */
function metadataReader(issuer: string): () => Promise<AuthorizationServerMetadata> {
  let discovered: Promise<AuthorizationServerMetadata> | undefined;
  let discoveryFailedAt = -Infinity;
  return function metadata(): Promise<AuthorizationServerMetadata> {
    // A failed discovery is tried again after 5 s, not on every request.
    if (discovered === undefined && performance.now() - discoveryFailedAt < 5_000) {
      return Promise.reject(
        new AuthorizationServerError({
          url: issuer,
          message: `the metadata of ${issuer} (auth.jwt.issuer) could not be read a moment ago`,
        }),
      );
    }
    discovered ??= discoverAuthorizationServer(issuer).catch((error: unknown) => {
      discovered = undefined;
      discoveryFailedAt = performance.now();
      throw error;
    });
    return discovered;
  };
}

/** The scopes of a token: `scope` (RFC 9068, space-separated) or `scp` (a list, some issuers). */
function scopesOf(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  if (Array.isArray(payload.scp))
    return payload.scp.filter((s): s is string => typeof s === 'string');
  if (typeof payload.scp === 'string') return payload.scp.split(' ').filter(Boolean);
  return [];
}

/** The union of the grants of `scopes` (`auth.jwt.scopes`); unknown scopes grant nothing. */
function grantsOf(map: Record<string, string[]>, scopes: readonly string[]): string[] {
  const grants = new Set<string>();
  for (const scope of scopes) {
    if (!Object.hasOwn(map, scope)) continue;
    for (const pattern of map[scope]!) grants.add(pattern);
  }
  return [...grants];
}

/** A jose failure as the refusal a client is told. */
function refusalOf(error: unknown): Error {
  if (error instanceof InvalidAccessTokenError || error instanceof AuthorizationServerError)
    return error;
  if (error instanceof errors.JWTExpired)
    return new InvalidAccessTokenError('expired', 'the access token expired', error);
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'iss':
        return new InvalidAccessTokenError(
          'issuer',
          'the access token is from another issuer (auth.jwt.issuer)',
          error,
        );
      case 'aud':
        return new InvalidAccessTokenError(
          'audience',
          'the access token is not for this gateway (auth.jwt.audience)',
          error,
        );
      case 'nbf':
        return new InvalidAccessTokenError(
          'not-yet-valid',
          'the access token is not valid yet',
          error,
        );
      default:
        return new InvalidAccessTokenError(
          'claims',
          `the access token's "${error.claim}" claim is invalid`,
          error,
        );
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return new InvalidAccessTokenError(
      'algorithm',
      'the access token is signed with an algorithm not accepted',
      error,
    );
  if (error instanceof errors.JWKSNoMatchingKey)
    return new InvalidAccessTokenError(
      'unknown-key',
      "the access token's signing key is not among the issuer's keys",
      error,
    );
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return new InvalidAccessTokenError(
      'signature',
      "the access token's signature is invalid",
      error,
    );
  return new InvalidAccessTokenError('malformed', 'the access token is malformed', error);
}
