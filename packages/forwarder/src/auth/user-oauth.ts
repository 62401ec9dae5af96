import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { AuthToken, ToolwireConfig } from '@toolwire/config';
import { JsonRpcFault } from '../json-rpc.js';
import { discoverAuthorizationServer, fetchJson } from './authorization-server.js';
import type { UserTokens, UserTokenSealer, UserTokenStore } from './user-token-store.js';

/** MCP's "URL elicitation required" error (2025-11-25): the user must visit a URL first. */
export const URL_ELICITATION_REQUIRED = -32042;

const FLOW_COOKIE = 'toolwire_upstream_auth';
const TICKET_TTL_MS = 10 * 60_000;

export interface UserOAuthOptions {
  config: ToolwireConfig;
  /** Signs the tickets of authorization URLs and the flow's cookie (shared by a fleet). */
  secret: Buffer;
  store: UserTokenStore;
  sealer: UserTokenSealer;
}

interface Ticket {
  server: string;
  issuer: string;
  subject: string;
  expires: number;
}

interface Flow {
  server: string;
  key: string;
  state: string;
  verifier: string;
  clientId: string;
  clientSecret?: string;
  tokenEndpoint: string;
  redirectUri: string;
  at: number;
}

interface Client {
  clientId: string;
  clientSecret?: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  scopes: string[];
}

/**
 * Per-user OAuth to upstreams whose `auth` is `{ type: "oauth", perUser: true }`: each caller (an
 * `auth.jwt` subject) authorizes the upstream for themselves at its own authorization server. A
 * call without the user's token fails with MCP's URL elicitation error naming
 * `<gateway>/auth/upstreams/<server>/connect?ticket=…` (signed, ten minutes, bound to the user);
 * that page runs the authorization code flow with PKCE (discovery from the upstream's protected
 * resource metadata, dynamic registration unless `clientId` is set) and its callback stores the
 * tokens, encrypted, per user and upstream. Calls then carry the user's token, refreshed when it
 * is about to expire.
 */
export class UserOAuth {
  private readonly clients = new Map<string, Promise<Client>>();
  private readonly base: string | undefined;

  constructor(private readonly options: UserOAuthOptions) {
    const audience = options.config.auth?.jwt?.audience;
    this.base = audience ? new URL(audience).origin : undefined;
  }

  /** Whether `server` is authorized per user. */
  isPerUser(server: string): boolean {
    const auth = this.options.config.mcpServers?.[server]?.auth;
    return auth?.type === 'oauth' && auth.perUser === true;
  }

  /** The `Authorization` of a call to `server` as the caller, or the URL elicitation fault. */
  async authorization(server: string, token: AuthToken | undefined): Promise<string> {
    const identity = token?.identity;
    if (!identity)
      throw new JsonRpcFault(
        -32003,
        `Upstream "${server}" is authorized by each user (mcpServers.${server}.auth.perUser): only a caller with an access token of auth.jwt can call it`,
        { upstream: server, policy: `mcpServers.${server}.auth` },
      );
    const key = this.keyOf(server, identity.issuer, identity.subject);
    const sealed = await this.options.store.get(key);
    let tokens = sealed ? this.options.sealer.open(key, sealed) : undefined;
    if (tokens?.expiresAt !== undefined && tokens.expiresAt - 30_000 < Date.now())
      tokens = tokens.refreshToken ? await this.refresh(key, tokens) : undefined;
    if (tokens) return `Bearer ${tokens.accessToken}`;
    const url = this.connectUrl(server, identity.issuer, identity.subject);
    throw new JsonRpcFault(
      URL_ELICITATION_REQUIRED,
      `Upstream "${server}" needs your authorization: open ${url} , then call again`,
      {
        elicitations: [
          {
            mode: 'url',
            elicitationId: randomUUID(),
            url,
            message: `Authorize Toolwire to use ${server} for you`,
          },
        ],
      },
    );
  }

  /** `/auth/upstreams/<server>/connect?ticket=`: where the browser is sent to authorize. */
  async start(
    server: string,
    ticketText: string | null,
  ): Promise<{ location: string; cookie: string }> {
    const ticket = this.verify<Ticket>(ticketText ?? undefined);
    if (!ticket || ticket.server !== server || ticket.expires < Date.now())
      throw new Error(
        'this authorization link expired or is not valid: call the tool again for a new one',
      );
    const client = await this.clientFor(server);
    const flow: Flow = {
      server,
      key: this.keyOf(server, ticket.issuer, ticket.subject),
      state: randomBytes(24).toString('base64url'),
      verifier: randomBytes(32).toString('base64url'),
      clientId: client.clientId,
      ...(client.clientSecret ? { clientSecret: client.clientSecret } : {}),
      tokenEndpoint: client.tokenEndpoint,
      redirectUri: this.callbackUrl(),
      at: Date.now(),
    };
    const url = new URL(client.authorizationEndpoint);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: flow.redirectUri,
      state: flow.state,
      code_challenge: createHash('sha256').update(flow.verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: this.options.config.mcpServers![server]!.url!,
      ...(client.scopes.length > 0 ? { scope: client.scopes.join(' ') } : {}),
    }).toString();
    return {
      location: url.toString(),
      cookie: `${FLOW_COOKIE}=${this.sign(flow)}; Path=/auth/upstreams; HttpOnly; SameSite=Lax; Max-Age=600${this.secure()}`,
    };
  }

  /** `/auth/upstreams/callback`: trades the code and keeps the user's tokens. */
  async finish(
    query: URLSearchParams,
    cookies: string | undefined,
  ): Promise<{ server: string; cookie: string }> {
    const flow = this.verify<Flow>(cookieOf(cookies, FLOW_COOKIE));
    if (!flow || Date.now() - flow.at > TICKET_TTL_MS || query.get('state') !== flow.state)
      throw new Error('this authorization was not started here or expired: call the tool again');
    const error = query.get('error');
    if (error) throw new Error(`the authorization server refused: ${error}`);
    const code = query.get('code');
    if (!code) throw new Error('the authorization server sent no code');
    const answer = await this.tokenRequest(flow, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: flow.redirectUri,
      code_verifier: flow.verifier,
      resource: this.options.config.mcpServers![flow.server]!.url!,
    });
    await this.keep(flow.key, answer, flow);
    return {
      server: flow.server,
      cookie: `${FLOW_COOKIE}=; Path=/auth/upstreams; HttpOnly; SameSite=Lax; Max-Age=0${this.secure()}`,
    };
  }

  private async refresh(key: string, tokens: UserTokens): Promise<UserTokens | undefined> {
    try {
      const answer = await this.tokenRequest(tokens, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refreshToken!,
      });
      return await this.keep(key, { refresh_token: tokens.refreshToken, ...answer }, tokens);
    } catch {
      await this.options.store.delete(key);
      return undefined;
    }
  }

  private async keep(
    key: string,
    answer: Record<string, unknown>,
    client: Pick<Flow, 'clientId' | 'clientSecret' | 'tokenEndpoint'>,
  ): Promise<UserTokens> {
    const tokens: UserTokens = {
      accessToken: String(answer.access_token),
      ...(typeof answer.refresh_token === 'string' ? { refreshToken: answer.refresh_token } : {}),
      ...(typeof answer.expires_in === 'number'
        ? { expiresAt: Date.now() + answer.expires_in * 1000 }
        : {}),
      clientId: client.clientId,
      ...(client.clientSecret ? { clientSecret: client.clientSecret } : {}),
      tokenEndpoint: client.tokenEndpoint,
    };
    await this.options.store.set(key, this.options.sealer.seal(key, tokens));
    return tokens;
  }

  private async tokenRequest(
    client: Pick<Flow, 'clientId' | 'clientSecret' | 'tokenEndpoint'>,
    params: Record<string, string>,
  ): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    const body = new URLSearchParams(params);
    if (client.clientSecret)
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;
    else body.set('client_id', client.clientId);
    const response = await fetch(client.tokenEndpoint, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(10_000),
    });
    const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok || typeof answer.access_token !== 'string')
      throw new Error(
        `the token endpoint answered HTTP ${response.status}${typeof answer.error === 'string' ? ` (${answer.error})` : ''}`,
      );
    return answer;
  }

  /** The upstream's authorization server and this gateway's client there (registered once). */
  private clientFor(server: string): Promise<Client> {
    let client = this.clients.get(server);
    if (!client) {
      client = this.discover(server);
      this.clients.set(server, client);
      client.catch(() => this.clients.delete(server));
    }
    return client;
  }

  private async discover(server: string): Promise<Client> {
    const settings = this.options.config.mcpServers![server]!;
    const auth = settings.auth as { clientId?: string; clientSecret?: string; scopes?: string[] };
    const resource = new URL(settings.url!);
    const path = resource.pathname === '/' ? '' : resource.pathname.replace(/\/$/, '');
    let protectedResource: Record<string, unknown> = {};
    for (const url of [
      `${resource.origin}/.well-known/oauth-protected-resource${path}`,
      `${resource.origin}/.well-known/oauth-protected-resource`,
    ]) {
      try {
        protectedResource = await fetchJson(url, 'protected resource metadata');
        break;
      } catch {
        // The next place, then the upstream's own origin as its authorization server.
      }
    }
    const servers = protectedResource.authorization_servers;
    const issuer =
      Array.isArray(servers) && typeof servers[0] === 'string' ? servers[0] : resource.origin;
    const metadata = await discoverAuthorizationServer(issuer);
    if (
      typeof metadata.authorization_endpoint !== 'string' ||
      typeof metadata.token_endpoint !== 'string'
    )
      throw new Error(`${issuer} names no authorization or token endpoint`);
    const supported = protectedResource.scopes_supported;
    const scopes =
      auth.scopes ??
      (Array.isArray(supported) ? supported.filter((s) => typeof s === 'string') : []);
    let clientId = auth.clientId;
    let clientSecret = auth.clientSecret;
    if (!clientId) {
      if (typeof metadata.registration_endpoint !== 'string')
        throw new Error(
          `${issuer} offers no client registration: set mcpServers.${server}.auth.clientId`,
        );
      const registered = await fetch(metadata.registration_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          client_name: 'Toolwire gateway',
          redirect_uris: [this.callbackUrl()],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          ...(scopes.length > 0 ? { scope: scopes.join(' ') } : {}),
        }),
        signal: AbortSignal.timeout(10_000),
      });
      const answer = (await registered.json().catch(() => ({}))) as Record<string, unknown>;
      if (!registered.ok || typeof answer.client_id !== 'string')
        throw new Error(`client registration at ${issuer} failed (HTTP ${registered.status})`);
      clientId = answer.client_id;
      clientSecret = typeof answer.client_secret === 'string' ? answer.client_secret : undefined;
    }
    return {
      clientId,
      ...(clientSecret ? { clientSecret } : {}),
      authorizationEndpoint: metadata.authorization_endpoint,
      tokenEndpoint: metadata.token_endpoint,
      scopes: scopes as string[],
    };
  }

  private keyOf(server: string, issuer: string, subject: string): string {
    return createHash('sha256')
      .update(`${server}\u0000${issuer}\u0000${subject}`)
      .digest('base64url');
  }

  private connectUrl(server: string, issuer: string, subject: string): string {
    const ticket: Ticket = { server, issuer, subject, expires: Date.now() + TICKET_TTL_MS };
    return `${this.publicBase()}/auth/upstreams/${encodeURIComponent(server)}/connect?ticket=${this.sign(ticket)}`;
  }

  private callbackUrl(): string {
    return `${this.publicBase()}/auth/upstreams/callback`;
  }

  private publicBase(): string {
    if (!this.base) throw new Error("per-user OAuth needs auth.jwt.audience (the gateway's URL)");
    return this.base;
  }

  private secure(): string {
    return this.base?.startsWith('https:') ? '; Secure' : '';
  }

  private mac(body: string): string {
    return createHmac('sha256', this.options.secret)
      .update(`user-oauth\u0000${body}`)
      .digest('base64url');
  }

  private sign(value: unknown): string {
    const body = Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  private verify<T>(signed: string | undefined): T | undefined {
    if (!signed) return undefined;
    const at = signed.lastIndexOf('.');
    if (at < 0) return undefined;
    const body = signed.slice(0, at);
    const expected = Buffer.from(this.mac(body));
    const given = Buffer.from(signed.slice(at + 1));
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    try {
      return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T;
    } catch {
      return undefined;
    }
  }
}

function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
