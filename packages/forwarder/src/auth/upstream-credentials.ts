import { createHash } from 'node:crypto';
import type { AuthToken, ToolwireConfig } from '@toolwire/config';
import { LRUCache } from 'lru-cache';
import { JsonRpcFault, UPSTREAM_UNAVAILABLE } from '../json-rpc.js';
import type { AccessTokenVerifier } from './access-token-verifier.js';
import type { UserOAuth } from './user-oauth.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** A call refused because the caller's identity cannot be carried to the upstream. */
const IDENTITY_REFUSED = -32003;

/**
 * The caller's identity towards each upstream (`mcpServers.<name>.auth`): `passthrough` sends the
 * caller's own access token, but only when its audience names the upstream too (a token minted
 * for the gateway alone is never replayed elsewhere); `token-exchange` trades it at the
 * authorization server (RFC 8693) for a token whose audience is the upstream, cached per caller
 * token until shortly before it expires; a per-user `oauth` upstream gets the user's own token
 * (`UserOAuth`). Other upstreams get the gateway's own credentials.
 */
export class UpstreamCredentials {
  private readonly exchanged = new LRUCache<string, { value: string; until: number }>({
    max: 10_000,
  });
  private readonly pending = new Map<string, Promise<string>>();

  constructor(
    private readonly config: ToolwireConfig,
    private readonly verifier: AccessTokenVerifier | undefined,
    private readonly userOAuth?: UserOAuth,
  ) {}

  /** Whether calls to `server` carry the caller's identity (and so need a per-call header). */
  carriesIdentity(server: string): boolean {
    const type = this.config.mcpServers?.[server]?.auth?.type;
    return (
      type === 'passthrough' ||
      type === 'token-exchange' ||
      (this.userOAuth?.isPerUser(server) ?? false)
    );
  }

  /**
   * The `Authorization` header for a call to `server` as `token`'s caller, `undefined` for the
   * gateway's own credentials. Throws a `JsonRpcFault` when the caller's identity cannot be
   * carried (no access token, an audience that does not allow it, a refused exchange).
   */
  async authorization(server: string, token: AuthToken | undefined): Promise<string | undefined> {
    const settings = this.config.mcpServers?.[server];
    const auth = settings?.auth;
    if (this.userOAuth?.isPerUser(server)) return this.userOAuth.authorization(server, token);
    if (!auth || (auth.type !== 'passthrough' && auth.type !== 'token-exchange')) return undefined;
    const identity = token?.identity;
    if (!token || !identity)
      throw new JsonRpcFault(
        IDENTITY_REFUSED,
        `Upstream "${server}" acts as the caller (mcpServers.${server}.auth: ${auth.type}): only a caller with an access token of auth.jwt can call it`,
        { upstream: server, policy: `mcpServers.${server}.auth` },
      );
    const audience = auth.audience ?? settings.url!;
    if (auth.type === 'passthrough') {
      if (!identity.audience.includes(audience))
        throw new JsonRpcFault(
          IDENTITY_REFUSED,
          `The caller's access token is not for upstream "${server}" (its audience does not name ${audience}), so it is not passed on (mcpServers.${server}.auth: passthrough)`,
          { upstream: server, policy: `mcpServers.${server}.auth` },
        );
      return `Bearer ${token.token}`;
    }
    return `Bearer ${await this.exchange(server, auth, audience, token)}`;
  }

  private async exchange(
    server: string,
    auth: Extract<
      NonNullable<NonNullable<ToolwireConfig['mcpServers']>[string]['auth']>,
      { type: 'token-exchange' }
    >,
    audience: string,
    token: AuthToken,
  ): Promise<string> {
    const key = createHash('sha256').update(`${server}\u0000${token.token}`).digest('base64url');
    const cached = this.exchanged.get(key);
    if (cached && cached.until > Date.now()) return cached.value;
    let pending = this.pending.get(key);
    if (!pending) {
      pending = this.request(server, auth, audience, token).finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    return pending;
  }

  private async request(
    server: string,
    auth: Parameters<UpstreamCredentials['exchange']>[1],
    audience: string,
    token: AuthToken,
  ): Promise<string> {
    const fail = (message: string): JsonRpcFault =>
      new JsonRpcFault(
        UPSTREAM_UNAVAILABLE,
        `Token exchange for upstream "${server}" failed: ${message}`,
        {
          upstream: server,
          reason: 'token_exchange',
        },
      );
    let endpoint = auth.tokenEndpoint;
    if (!endpoint) {
      if (!this.verifier) throw fail('no token endpoint (set tokenEndpoint, or auth.jwt)');
      const metadata = await this.verifier.metadata().catch((error: Error) => {
        throw fail(error.message);
      });
      endpoint = metadata.token_endpoint;
      if (typeof endpoint !== 'string') throw fail(`${metadata.issuer} names no token_endpoint`);
    }
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    const body = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      subject_token: token.token,
      subject_token_type: ACCESS_TOKEN_TYPE,
      requested_token_type: ACCESS_TOKEN_TYPE,
      resource: audience,
      audience,
      ...(auth.scopes?.length ? { scope: auth.scopes.join(' ') } : {}),
    });
    if (auth.clientSecret)
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(auth.clientId)}:${encodeURIComponent(auth.clientSecret)}`).toString('base64')}`;
    else body.set('client_id', auth.clientId);
    let answer: {
      access_token?: unknown;
      expires_in?: unknown;
      error?: unknown;
      error_description?: unknown;
    };
    let status: number;
    try {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(10_000),
      });
      status = response.status;
      answer = (await response.json().catch(() => ({}))) as typeof answer;
    } catch (error) {
      throw fail((error as Error).message);
    }
    if (status !== 200 || typeof answer.access_token !== 'string') {
      const reason =
        typeof answer.error === 'string'
          ? `${answer.error}${typeof answer.error_description === 'string' ? `: ${answer.error_description}` : ''}`
          : `HTTP ${status}`;
      throw fail(reason);
    }
    const lifetime = typeof answer.expires_in === 'number' ? answer.expires_in * 1000 : 60_000;
    // Used until 30 s before it expires, and never past the caller's own token.
    const until = Math.min(
      Date.now() + lifetime - 30_000,
      token.identity?.expiresAt ?? Number.POSITIVE_INFINITY,
    );
    const key = createHash('sha256').update(`${server}\u0000${token.token}`).digest('base64url');
    if (until > Date.now()) this.exchanged.set(key, { value: answer.access_token, until });
    return answer.access_token;
  }
}
