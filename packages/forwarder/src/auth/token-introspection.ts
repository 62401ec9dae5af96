import type { AuthJwtConfig } from '@toolwire/config';
import type { JWTPayload } from 'jose';
import { InvalidAccessTokenError } from './access-token-verifier.js';
import { AuthorizationServerError } from './authorization-server.js';

/**
 * RFC 7662: asks `endpoint` about an opaque token as the client of `config.introspection`. The
 * token must be active, from the issuer (when the answer says), for the gateway's audience, and
 * within `exp`/`nbf` (with the clock skew). Resolves with the answer's claims.
 */
export async function introspectToken(
  token: string,
  endpoint: string,
  config: AuthJwtConfig,
): Promise<JWTPayload> {
  const { clientId, clientSecret } = config.introspection!;
  const skew = config.clockSkewSeconds ?? 30;
  let answer: Record<string, unknown>;
  try {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: `Basic ${Buffer.from(
          `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`,
        ).toString('base64')}`,
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    answer = (await response.json()) as Record<string, unknown>;
  } catch (cause) {
    throw new AuthorizationServerError({
      url: endpoint,
      message: `token introspection at ${endpoint} failed: ${(cause as Error).message}`,
      cause,
    });
  }
  if (answer.active !== true)
    throw new InvalidAccessTokenError('inactive', 'the access token is not active');
  const now = Date.now() / 1000;
  if (answer.iss !== undefined && answer.iss !== config.issuer)
    throw new InvalidAccessTokenError('issuer', 'the access token is from another issuer');
  const audience =
    typeof answer.aud === 'string' ? [answer.aud] : Array.isArray(answer.aud) ? answer.aud : [];
  if (!audience.includes(config.audience))
    throw new InvalidAccessTokenError(
      'audience',
      `the access token is not for this gateway (its audience does not name ${config.audience})`,
    );
  if (typeof answer.exp === 'number' && answer.exp + skew < now)
    throw new InvalidAccessTokenError('expired', 'the access token expired');
  if (typeof answer.nbf === 'number' && answer.nbf - skew > now)
    throw new InvalidAccessTokenError('not-yet-valid', 'the access token is not valid yet');
  return answer as JWTPayload;
}
