// A real OAuth 2.1 authorization server for the identity tests: oidc-provider on a free loopback
// port, issuing JWT access tokens (RFC 9068) for any resource indicator, with dynamic client
// registration, Client ID Metadata Documents, PKCE, client credentials, introspection, and an
// RFC 8693 token-exchange grant registered on its token endpoint. Logins and consents are granted
// at once by the test's own interaction endpoint (as `user`), so a browser or a redirect-following
// fetch completes the authorization code flow. Keys can be rotated without restarting the server
// the gateway talks to; JWKS fetches are counted.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT, createLocalJWKSet, type JWK } from 'jose';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

const SCOPES = ['tools:all', 'math', 'memory:read', 'web'];

export interface SigningKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

export interface AuthorizationServer {
  issuer: string;
  /** A confidential client allowed client_credentials and token exchange. */
  machine: { clientId: string; clientSecret: string };
  /** The key the provider signs with now. */
  readonly key: SigningKey;
  /** JWKS documents served so far. */
  readonly jwksFetches: number;
  /** Who logs in at the next authorization (the subject of its tokens). */
  user: string;
  /** Authorization requests seen (their query parameters). */
  authorizations: URLSearchParams[];
  /** Token exchanges performed: the subject token's subject and the audience asked for. */
  exchanges: Array<{ subject: string; audience: string; clientId: string }>;
  /** A client_credentials access token for `resource` with these scopes (subject: the client). */
  token(options: { resource: string; scope?: string }): Promise<string>;
  /** Signs `payload` with the provider's current key (or `key`), for tokens it would not issue. */
  sign(
    payload: Record<string, unknown>,
    options?: { key?: SigningKey; header?: Record<string, unknown> },
  ): Promise<string>;
  /** A new signing key: the provider signs with it and serves only it from now on. */
  rotate(): Promise<void>;
  close(): Promise<void>;
}

export async function newSigningKey(): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  return {
    kid,
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' },
  };
}

export async function startAuthorizationServer(
  options: {
    scopes?: string[];
    /** Access tokens for these resources are opaque (checked by introspection), not JWTs. */
    opaque?: string[];
  } = {},
): Promise<AuthorizationServer> {
  const scopes = [...SCOPES, ...(options.scopes ?? [])];
  const machine = { clientId: 'machine', clientSecret: 'machine-secret-0123456789abcdef' };
  let key = await newSigningKey();
  let jwksFetches = 0;
  let provider!: Provider;
  let issuer = '';

  const state: Pick<AuthorizationServer, 'user' | 'authorizations' | 'exchanges'> = {
    user: 'alice',
    authorizations: [],
    exchanges: [],
  };

  function makeProvider(): Provider {
    const made = new Provider(issuer, {
      clients: [
        {
          client_id: machine.clientId,
          client_secret: machine.clientSecret,
          grant_types: ['client_credentials', TOKEN_EXCHANGE],
          redirect_uris: [],
          response_types: [],
          scope: scopes.join(' '),
        },
      ],
      jwks: { keys: [key.privateJwk as never] },
      scopes: ['openid', 'offline_access', ...scopes],
      findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
      pkce: { required: () => true },
      clientBasedCORS: () => true,
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        introspection: { enabled: true, allowedPolicy: () => true },
        registration: { enabled: true },
        clientIdMetadataDocument: { enabled: true, ack: 'draft-02', allowFetch: () => true },
        resourceIndicators: {
          enabled: true,
          defaultResource: (_ctx, _client, oneOf) => oneOf ?? undefined,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, resource) =>
            ({
              scope: scopes.join(' '),
              audience: resource,
              accessTokenFormat: options.opaque?.includes(resource) ? 'opaque' : 'jwt',
              accessTokenTTL: 300,
              jwt: { sign: { alg: 'RS256' } },
            }) as never,
        },
      },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      ttl: {
        Interaction: 600,
        Session: 600,
        Grant: 600,
        AuthorizationCode: 60,
        ClientCredentials: 300,
        AccessToken: 300,
      },
    });
    // A fault inside the provider shows in the test's output, not only as "server_error".
    made.on('server_error', (_ctx: unknown, error: Error) =>
      console.error('oidc-provider:', error),
    );
    made.registerGrantType(TOKEN_EXCHANGE, exchange, [
      'subject_token',
      'subject_token_type',
      'requested_token_type',
      'resource',
      'audience',
      'scope',
    ]);
    return made;
  }

  /**
   * RFC 8693: the subject token must be an access token this provider issued (checked against its
   * own keys); the answer is a JWT access token for the requested audience with the same subject,
   * signed with the provider's key.
   */
  async function exchange(ctx: KoaContextWithOIDC): Promise<void> {
    const params = ctx.oidc.params as Record<string, string | undefined>;
    const fail = (status: number, error: string, description: string): void => {
      ctx.status = status;
      ctx.body = { error, error_description: description };
    };
    if (params.subject_token_type !== ACCESS_TOKEN_TYPE || !params.subject_token)
      return fail(400, 'invalid_request', 'subject_token of type access_token expected');
    const audience = params.resource ?? params.audience;
    if (!audience) return fail(400, 'invalid_target', 'resource or audience expected');
    let subject: string;
    let scope: string | undefined;
    try {
      const { payload } = await jwtVerify(
        params.subject_token,
        createLocalJWKSet({ keys: [key.publicJwk] }),
        { issuer },
      );
      subject = String(payload.sub);
      scope = typeof payload.scope === 'string' ? payload.scope : undefined;
    } catch (error) {
      return fail(400, 'invalid_grant', `subject_token refused: ${(error as Error).message}`);
    }
    const clientId = ctx.oidc.client!.clientId;
    state.exchanges.push({ subject, audience, clientId });
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({
      scope: params.scope ?? scope,
      client_id: clientId,
      act: { sub: clientId },
    })
      .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setSubject(subject)
      .setAudience(audience)
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .setJti(randomUUID())
      .sign(await importPrivate(key));
    ctx.body = {
      access_token: token,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: 300,
    };
  }

  /** The test's interaction endpoint: logs `user` in and grants what the client asked for. */
  async function interact(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    const { prompt, params } = details;
    if (prompt.name === 'login') {
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: state.user } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({
          accountId: details.session!.accountId,
          clientId: String(params.client_id),
        });
    const missing = prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant!.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
      grant!.addResourceScope(resource, scopes.join(' '));
    const grantId = await grant!.save();
    await provider.interactionFinished(
      req,
      res,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    );
  }

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/jwks') jwksFetches++;
    if (path === '/auth') state.authorizations.push(new URL(req.url!, issuer).searchParams);
    if (path.startsWith('/interaction/')) {
      interact(req, res).catch((error: Error) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(error.stack);
      });
      return;
    }
    provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider = makeProvider();

  return {
    issuer,
    machine,
    get key() {
      return key;
    },
    get jwksFetches() {
      return jwksFetches;
    },
    get user() {
      return state.user;
    },
    set user(value: string) {
      state.user = value;
    },
    authorizations: state.authorizations,
    exchanges: state.exchanges,
    async token({ resource, scope }) {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${machine.clientId}:${machine.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          resource,
          ...(scope ? { scope } : {}),
        }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!response.ok || !body.access_token)
        throw new Error(`token request failed: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async sign(payload, options = {}) {
      const signingKey = options.key ?? key;
      return new SignJWT(payload)
        .setProtectedHeader({ alg: 'RS256', kid: signingKey.kid, typ: 'at+jwt', ...options.header })
        .sign(await importPrivate(signingKey));
    },
    async rotate() {
      key = await newSigningKey();
      // The same issuer and port; a new provider instance serves the new key set.
      provider = makeProvider();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function importPrivate(key: SigningKey) {
  const { importJWK } = await import('jose');
  return importJWK(key.privateJwk, 'RS256');
}

/**
 * Follows an authorization URL the way a browser would (cookies kept, redirects followed) until a
 * redirect leaves the authorization server; returns that URL (the client's redirect URI with
 * `code` and `state`).
 */
export async function authorizeLikeABrowser(url: string, issuer: string): Promise<URL> {
  const cookies = new Map<string, string>();
  let next = new URL(url);
  for (let hop = 0; hop < 20; hop++) {
    if (next.origin !== new URL(issuer).origin) return next;
    const response = await fetch(next, {
      redirect: 'manual',
      headers: {
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const location = response.headers.get('location');
    await response.body?.cancel();
    if (!location) throw new Error(`authorization stopped at ${next} with HTTP ${response.status}`);
    next = new URL(location, next);
  }
  throw new Error('too many redirects');
}
