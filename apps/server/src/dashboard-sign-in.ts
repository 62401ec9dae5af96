import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthorizationServerMetadata } from '@toolwire/forwarder';
import { HttpError } from './http-util.js';
import type { Logger } from './logger.js';
import type { Runtime } from './runtime.js';

/** The cookie that carries a sign-in's state and PKCE verifier from `/auth/sign-in` to the callback. */
const FLOW_COOKIE = 'toolwire_sign_in';
/** The cookie that hands the access token to the page once (it moves it to sessionStorage). */
const TOKEN_COOKIE = 'toolwire_token';
const FLOW_MAX_AGE_S = 600;

interface Flow {
  state: string;
  verifier: string;
  at: number;
}

function base64url(bytes: Buffer): string {
  return bytes.toString('base64url');
}

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * Dashboard sign-in at the `auth.jwt` issuer: the authorization code flow with PKCE (S256), the
 * gateway being the client (`auth.jwt.dashboard.clientId`, else a client it registers itself).
 * `/auth/sign-in` sends the browser to the issuer with a state and code challenge kept in a
 * signed, HttpOnly cookie (any instance of a fleet can finish the flow); `/auth/callback` checks
 * the state, trades the code for an access token for the gateway's audience and hands it to the
 * page in a short-lived cookie the page moves into its session storage.
 */
export function createDashboardSignIn(options: { secret: Buffer; logger: Logger }) {
  const key = createHmac('sha256', options.secret).update('dashboard-sign-in').digest();
  // Clients registered at an issuer, by issuer and redirect URI.
  const registered = new Map<string, Promise<string>>();

  const sign = (value: string): string =>
    `${value}.${base64url(createHmac('sha256', key).update(value).digest())}`;
  const verify = (signed: string | undefined): string | undefined => {
    if (!signed) return undefined;
    const at = signed.lastIndexOf('.');
    if (at < 0) return undefined;
    const value = signed.slice(0, at);
    const expected = Buffer.from(sign(value).slice(at + 1));
    const given = Buffer.from(signed.slice(at + 1));
    return expected.length === given.length && timingSafeEqual(expected, given) ? value : undefined;
  };

  function settingsOf(runtime: Runtime) {
    const jwt = runtime.config.auth?.jwt;
    const verifier = runtime.forwarder.auth.verifier;
    if (!jwt || !verifier)
      throw new HttpError(404, 'Sign-in needs auth.jwt (an authorization server) in the config');
    const origin = new URL(jwt.audience).origin;
    return { jwt, verifier, redirectUri: `${origin}/auth/callback`, origin };
  }

  async function clientIdFor(
    metadata: AuthorizationServerMetadata,
    redirectUri: string,
    configured: string | undefined,
  ): Promise<string> {
    if (configured) return configured;
    const endpoint = metadata.registration_endpoint;
    if (typeof endpoint !== 'string')
      throw new HttpError(
        503,
        `${metadata.issuer} offers no client registration: set auth.jwt.dashboard.clientId`,
      );
    const cacheKey = `${metadata.issuer}\u0000${redirectUri}`;
    let pending = registered.get(cacheKey);
    if (!pending) {
      pending = (async () => {
        const response = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({
            client_name: 'Toolwire dashboard',
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none',
          }),
          signal: AbortSignal.timeout(10_000),
        });
        const body = (await response.json().catch(() => ({}))) as { client_id?: unknown };
        if (!response.ok || typeof body.client_id !== 'string')
          throw new Error(`client registration at ${endpoint} failed (HTTP ${response.status})`);
        options.logger.info('registered the dashboard at the issuer', {
          issuer: metadata.issuer,
          clientId: body.client_id,
        });
        return body.client_id;
      })();
      registered.set(cacheKey, pending);
      pending.catch(() => registered.delete(cacheKey));
    }
    return pending;
  }

  async function start(runtime: Runtime, res: ServerResponse): Promise<void> {
    const { jwt, verifier, redirectUri, origin } = settingsOf(runtime);
    const metadata = await verifier.metadata();
    if (typeof metadata.authorization_endpoint !== 'string')
      throw new HttpError(503, `${jwt.issuer} names no authorization_endpoint`);
    const clientId = await clientIdFor(metadata, redirectUri, jwt.dashboard?.clientId);
    const flow: Flow = {
      state: base64url(randomBytes(24)),
      verifier: base64url(randomBytes(32)),
      at: Date.now(),
    };
    const url = new URL(metadata.authorization_endpoint);
    const scopes = jwt.dashboard?.scopes ?? Object.keys(jwt.scopes ?? {});
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      state: flow.state,
      code_challenge: base64url(createHash('sha256').update(flow.verifier).digest()),
      code_challenge_method: 'S256',
      resource: jwt.audience,
      ...(scopes.length > 0 ? { scope: scopes.join(' ') } : {}),
    }).toString();
    const secure = origin.startsWith('https:') ? '; Secure' : '';
    res.writeHead(302, {
      location: url.toString(),
      'set-cookie': `${FLOW_COOKIE}=${sign(Buffer.from(JSON.stringify(flow)).toString('base64url'))}; Path=/auth; HttpOnly; SameSite=Lax; Max-Age=${FLOW_MAX_AGE_S}${secure}`,
      'cache-control': 'no-store',
    });
    res.end();
  }

  async function callback(runtime: Runtime, req: IncomingMessage, res: ServerResponse) {
    const { jwt, verifier, redirectUri, origin } = settingsOf(runtime);
    const query = new URL(req.url ?? '/', origin).searchParams;
    const raw = verify(cookieOf(req, FLOW_COOKIE));
    let flow: Flow | undefined;
    try {
      flow = raw ? (JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Flow) : undefined;
    } catch {
      flow = undefined;
    }
    if (!flow || Date.now() - flow.at > FLOW_MAX_AGE_S * 1000)
      throw new HttpError(
        400,
        'Sign-in expired or was not started here: start again from the dashboard',
      );
    if (query.get('state') !== flow.state)
      throw new HttpError(400, 'Sign-in refused: the state does not match (start again)');
    const error = query.get('error');
    if (error) throw new HttpError(401, `Sign-in refused by the issuer: ${error}`);
    const code = query.get('code');
    if (!code) throw new HttpError(400, 'Sign-in answer without a code');
    const metadata = await verifier.metadata();
    if (typeof metadata.token_endpoint !== 'string')
      throw new HttpError(503, `${jwt.issuer} names no token_endpoint`);
    const clientId = await clientIdFor(metadata, redirectUri, jwt.dashboard?.clientId);
    const secret = jwt.dashboard?.clientSecret;
    const response = await fetch(metadata.token_endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        ...(secret
          ? {
              authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
            }
          : {}),
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: flow.verifier,
        resource: jwt.audience,
        ...(secret ? {} : { client_id: clientId }),
      }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json().catch(() => ({}))) as {
      access_token?: unknown;
      error?: unknown;
    };
    if (!response.ok || typeof body.access_token !== 'string')
      throw new HttpError(
        502,
        `The issuer did not give an access token (HTTP ${response.status}${typeof body.error === 'string' ? `: ${body.error}` : ''})`,
      );
    // The token must be one this gateway accepts before the page is given it.
    await verifier.verify(body.access_token).catch((failure: Error) => {
      throw new HttpError(
        502,
        `The issuer's access token is not for this gateway: ${failure.message}`,
      );
    });
    const secure = origin.startsWith('https:') ? '; Secure' : '';
    res.writeHead(302, {
      location: '/',
      'set-cookie': [
        `${FLOW_COOKIE}=; Path=/auth; HttpOnly; SameSite=Lax; Max-Age=0${secure}`,
        `${TOKEN_COOKIE}=${body.access_token}; Path=/; SameSite=Strict; Max-Age=60${secure}`,
      ],
      'cache-control': 'no-store',
    });
    res.end();
  }

  return {
    async handle(runtime: Runtime, path: string, req: IncomingMessage, res: ServerResponse) {
      if (path === '/auth/sign-in') return start(runtime, res);
      if (path === '/auth/callback') return callback(runtime, req, res);
      throw new HttpError(404, `Not found: ${path}`);
    },
  };
}
