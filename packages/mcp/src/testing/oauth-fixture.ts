// A small OAuth-protected MCP server for tests, on 127.0.0.1: an authorization server (RFC 8414
// metadata, dynamic client registration, authorization endpoint that approves at once, token
// endpoint with PKCE S256 checks and refresh-token rotation) and a protected resource (RFC 9728
// metadata, 401 with WWW-Authenticate, a minimal 2025-11-25 streamable HTTP MCP endpoint answering
// with JSON). Everything it sees is recorded for assertions.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OAuthFixtureOptions {
  /** The authorization endpoint refuses (redirects back with `error=access_denied`). */
  refuse?: boolean;
  /** Lifetime of access tokens, in seconds (default 3600). */
  expiresIn?: number;
  /** A pre-registered confidential client that may use the client_credentials grant. */
  machineClient?: { clientId: string; clientSecret: string };
}

interface Client {
  client_id: string;
  redirect_uris: string[];
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  resource: string | null;
}

export interface OAuthFixture {
  /** The MCP endpoint (the protected resource). */
  mcpUrl: string;
  issuer: string;
  /** Every request either server received, as `METHOD /path`. */
  requests: string[];
  registrations: Client[];
  /** Query parameters of each authorization request. */
  authorizations: URLSearchParams[];
  /** `grant_type` of each successful token request. */
  grants: string[];
  /** Tool calls that reached the MCP endpoint with a valid token. */
  calls: string[];
  /** Invalidates every access token (the refresh tokens stay valid). */
  expireAccessTokens(): void;
  /** Invalidates every access and refresh token: only a new authorization helps. */
  revokeAll(): void;
  /** From now on the authorization endpoint refuses (`error=access_denied`). */
  refuseAuthorization(): void;
  close(): Promise<void>;
}

export async function startOAuthFixture(
  fixtureOptions: OAuthFixtureOptions = {},
): Promise<OAuthFixture> {
  const options = { ...fixtureOptions };
  const requests: string[] = [];
  const registrations: Client[] = [];
  const authorizations: URLSearchParams[] = [];
  const grants: string[] = [];
  const calls: string[] = [];
  const codes = new Map<string, PendingCode>();
  const accessTokens = new Set<string>();
  const refreshTokens = new Map<string, string>(); // refresh token -> client id
  let issuer = '';
  let resourceOrigin = '';

  const issue = (clientId: string) => {
    const access = randomBytes(16).toString('hex');
    const refresh = randomBytes(16).toString('hex');
    accessTokens.add(access);
    refreshTokens.set(refresh, clientId);
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: options.expiresIn ?? 3600,
      refresh_token: refresh,
      scope: 'tools',
    };
  };

  const authorizationServer = createServer((request, response) => {
    void handle(request, response, async (url) => {
      if (url.pathname === '/.well-known/oauth-authorization-server') {
        return json(response, 200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          registration_endpoint: `${issuer}/register`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
          scopes_supported: ['tools'],
        });
      }
      if (url.pathname === '/register' && request.method === 'POST') {
        const metadata = JSON.parse(await body(request)) as { redirect_uris?: string[] };
        if (!Array.isArray(metadata.redirect_uris) || metadata.redirect_uris.length === 0)
          return json(response, 400, { error: 'invalid_redirect_uri' });
        const client = {
          ...metadata,
          client_id: `client-${registrations.length + 1}`,
          client_id_issued_at: Math.floor(Date.now() / 1000),
          token_endpoint_auth_method: 'none',
          redirect_uris: metadata.redirect_uris,
        };
        registrations.push(client);
        return json(response, 201, client);
      }
      if (url.pathname === '/authorize') {
        authorizations.push(url.searchParams);
        const params = url.searchParams;
        const client = registrations.find((c) => c.client_id === params.get('client_id'));
        const redirectUri = params.get('redirect_uri') ?? '';
        if (!client || !client.redirect_uris.includes(redirectUri))
          return json(response, 400, { error: 'invalid_client' });
        const back = new URL(redirectUri);
        if (params.get('state')) back.searchParams.set('state', params.get('state')!);
        if (options.refuse) {
          back.searchParams.set('error', 'access_denied');
          back.searchParams.set('error_description', 'the user said no');
        } else if (
          params.get('response_type') !== 'code' ||
          params.get('code_challenge_method') !== 'S256' ||
          !params.get('code_challenge')
        ) {
          back.searchParams.set('error', 'invalid_request');
          back.searchParams.set('error_description', 'PKCE S256 is required');
        } else {
          const code = randomBytes(12).toString('hex');
          codes.set(code, {
            clientId: client.client_id,
            redirectUri,
            challenge: params.get('code_challenge')!,
            resource: params.get('resource'),
          });
          back.searchParams.set('code', code);
        }
        response.writeHead(302, { location: back.href }).end();
        return;
      }
      if (url.pathname === '/token' && request.method === 'POST') {
        const form = new URLSearchParams(await body(request));
        const grant = form.get('grant_type');
        if (grant === 'authorization_code') {
          const pending = codes.get(form.get('code') ?? '');
          codes.delete(form.get('code') ?? '');
          const verifier = form.get('code_verifier') ?? '';
          const challenge = createHash('sha256').update(verifier).digest('base64url');
          if (
            !pending ||
            pending.clientId !== form.get('client_id') ||
            pending.redirectUri !== form.get('redirect_uri') ||
            pending.challenge !== challenge
          )
            return json(response, 400, { error: 'invalid_grant' });
          grants.push(grant);
          return json(response, 200, issue(pending.clientId));
        }
        if (grant === 'refresh_token') {
          const refresh = form.get('refresh_token') ?? '';
          const clientId = refreshTokens.get(refresh);
          if (!clientId || clientId !== form.get('client_id'))
            return json(response, 400, { error: 'invalid_grant' });
          refreshTokens.delete(refresh);
          grants.push(grant);
          return json(response, 200, issue(clientId));
        }
        if (grant === 'client_credentials' && options.machineClient) {
          const [id, secret] = Buffer.from(
            (request.headers.authorization ?? '').replace(/^Basic /, ''),
            'base64',
          )
            .toString('utf8')
            .split(':')
            .map(decodeURIComponent);
          if (
            id !== options.machineClient.clientId ||
            secret !== options.machineClient.clientSecret
          )
            return json(response, 401, { error: 'invalid_client' });
          grants.push(grant);
          const { refresh_token: _none, ...token } = issue(id);
          return json(response, 200, token);
        }
        return json(response, 400, { error: 'unsupported_grant_type' });
      }
      json(response, 404, { error: 'not_found' });
    });
  });

  const resourceMetadataPath = '/.well-known/oauth-protected-resource/mcp';
  const resourceServer = createServer((request, response) => {
    void handle(request, response, async (url) => {
      if (url.pathname === resourceMetadataPath) {
        return json(response, 200, {
          resource: `${resourceOrigin}/mcp`,
          authorization_servers: [issuer],
          scopes_supported: ['tools'],
          bearer_methods_supported: ['header'],
        });
      }
      if (url.pathname !== '/mcp') return json(response, 404, { error: 'not_found' });
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      if (!token || !accessTokens.has(token)) {
        response
          .writeHead(401, {
            'www-authenticate': `Bearer error="invalid_token", resource_metadata="${resourceOrigin}${resourceMetadataPath}"`,
            'content-type': 'application/json',
          })
          .end(JSON.stringify({ error: 'invalid_token' }));
        return;
      }
      if (request.method !== 'POST') {
        response.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      const message = JSON.parse(await body(request)) as {
        id?: number | string;
        method: string;
        params?: { protocolVersion?: string; name?: string };
      };
      if (message.id === undefined) {
        response.writeHead(202).end();
        return;
      }
      const reply = (result: unknown) =>
        json(response, 200, { jsonrpc: '2.0', id: message.id, result });
      switch (message.method) {
        case 'initialize':
          return reply({
            protocolVersion: message.params?.protocolVersion ?? '2025-11-25',
            capabilities: { tools: {} },
            serverInfo: { name: 'oauth-fixture', version: '1.0.0' },
          });
        case 'ping':
          return reply({});
        case 'tools/list':
          return reply({
            tools: [
              {
                name: 'whoami',
                description: 'Says hello to the authorized caller.',
                inputSchema: { type: 'object', properties: {} },
              },
            ],
          });
        case 'tools/call':
          calls.push(message.params?.name ?? '');
          return reply({ content: [{ type: 'text', text: 'hello, authorized caller' }] });
        default:
          return json(response, 200, {
            jsonrpc: '2.0',
            id: message.id,
            error: { code: -32601, message: `Method not found: ${message.method}` },
          });
      }
    });
  });

  function handle(
    request: IncomingMessage,
    response: ServerResponse,
    route: (url: URL) => Promise<void> | void,
  ): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    requests.push(`${request.method} ${url.pathname}`);
    return Promise.resolve(route(url)).catch((error: unknown) => {
      if (!response.headersSent) json(response, 500, { error: String(error) });
    });
  }

  issuer = `http://127.0.0.1:${await listen(authorizationServer)}`;
  resourceOrigin = `http://127.0.0.1:${await listen(resourceServer)}`;

  return {
    mcpUrl: `${resourceOrigin}/mcp`,
    issuer,
    requests,
    registrations,
    authorizations,
    grants,
    calls,
    expireAccessTokens: () => accessTokens.clear(),
    revokeAll: () => {
      accessTokens.clear();
      refreshTokens.clear();
    },
    refuseAuthorization: () => {
      options.refuse = true;
    },
    close: async () => {
      await Promise.all([close(authorizationServer), close(resourceServer)]);
    },
  };
}

function json(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
