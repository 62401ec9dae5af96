import type { IncomingMessage } from 'node:http';
import type { AuthToken } from '@toolwire/config';
import { HttpError } from '../http-helpers.js';
import { INTERNAL_ERROR, UNAUTHORIZED } from '../json-rpc.js';
import { InvalidAccessTokenError, type AccessTokenVerifier } from './access-token-verifier.js';
import { AuthorizationServerError } from './authorization-server.js';
import { resourceMetadataUrl } from './protected-resource.js';

/** Who is calling: `auth.tokens` and, with `auth.jwt`, access tokens from an authorization server. */
export interface Authenticator {
  /** Whether requests need a bearer token at all (`auth` configured). */
  readonly required: boolean;
  /** The access-token verifier of `auth.jwt`, when configured. */
  readonly verifier: AccessTokenVerifier | undefined;
  /**
   * The caller of a request: `undefined` without auth; else its token's entry, or a 401
   * `HttpError` carrying `WWW-Authenticate` (with `resource_metadata` under `auth.jwt`). An issuer
   * that cannot be read makes it a 503.
   */
  authenticate(req: IncomingMessage): Promise<AuthToken | undefined>;
  /** The `WWW-Authenticate` value of a 401 (RFC 6750, RFC 9728). */
  challenge(error?: { error: string; description: string }): string;
}

export interface AuthenticatorOptions {
  /** `auth.tokens` with their client names (`authTokensOf`). */
  tokens: readonly AuthToken[];
  verifier?: AccessTokenVerifier;
}

const BEARER = /^Bearer\s+(.+)$/i;

export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const tokens = new Map(options.tokens.map((token) => [token.token, token]));
  const { verifier } = options;
  const metadataUrl = verifier ? resourceMetadataUrl(verifier.config.audience) : undefined;

  function challenge(error?: { error: string; description: string }): string {
    const params: string[] = [];
    if (metadataUrl) params.push(`resource_metadata="${metadataUrl}"`);
    if (error) {
      params.push(`error="${error.error}"`);
      // A quoted-string: no quotes or backslashes inside.
      params.push(`error_description="${error.description.replace(/["\\]/g, "'")}"`);
    }
    return params.length === 0 ? 'Bearer' : `Bearer ${params.join(', ')}`;
  }

  function unauthorized(message: string, error?: { error: string; description: string }) {
    return new HttpError(401, message, UNAUTHORIZED, { 'www-authenticate': challenge(error) });
  }

  return {
    required: tokens.size > 0 || verifier !== undefined,
    verifier,
    challenge,
    async authenticate(req) {
      if (tokens.size === 0 && !verifier) return undefined;
      const header = req.headers.authorization;
      const match = typeof header === 'string' ? BEARER.exec(header) : null;
      if (!match) {
        throw unauthorized(
          'Unauthorized: an Authorization: Bearer <token> header is required (auth)',
        );
      }
      const secret = match[1]!.trim();
      const known = tokens.get(secret);
      if (known) return known;
      if (!verifier) throw unauthorized('Unauthorized: unknown bearer token (auth.tokens)');
      try {
        return await verifier.verify(secret);
      } catch (error) {
        if (error instanceof InvalidAccessTokenError) {
          throw unauthorized(`Unauthorized: ${error.message}`, {
            error: 'invalid_token',
            description: error.message,
          });
        }
        if (error instanceof AuthorizationServerError) {
          throw new HttpError(
            503,
            `Service Unavailable: the access token cannot be checked now (${error.message})`,
            INTERNAL_ERROR,
            { 'retry-after': '5' },
          );
        }
        throw error;
      }
    },
  };
}
