import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runBatch, type BatchCall, type BatchResult } from './batch.js';
import type { CallContext } from './call/call-context.js';
import { CallPipeline, type CallPipelineOptions } from './call/call-pipeline.js';
import { ProtocolBridge } from './bridge/protocol-bridge.js';
import type { ServerRequestEvent } from './bridge/server-requests.js';
import { Catalog } from './catalog.js';
import {
  authTokensOf,
  validateConfig,
  type AuthToken,
  type ToolwireConfig,
} from '@toolwire/config';
import {
  createHttpGuard,
  LOOPBACK_HOSTS,
  type AllowedOrigins,
  type HttpGuard,
} from './http-guard.js';
import { decodePathSegment, sendHttpError, sendJson } from './http-helpers.js';
import { createHttpListener, type HttpListenerOptions } from './http-listener.js';
import { createAccessTokenVerifier } from './auth/access-token-verifier.js';
import { createAuthenticator, type Authenticator } from './auth/authenticator.js';
import { createMemoryPinStore } from './pins/pin-store.js';
import { randomBytes } from 'node:crypto';
import { serveUserOAuth, USER_OAUTH_PREFIX } from './auth/user-oauth-routes.js';
import { UserOAuth } from './auth/user-oauth.js';
import {
  createMemoryUserTokenStore,
  UserTokenSealer,
  type UserTokenStore,
} from './auth/user-token-store.js';
import { ToolPins } from './pins/tool-pins.js';
import { protectedResourceMetadata, protectedResourcePaths } from './auth/protected-resource.js';
import { GatewayMode } from './gateway-mode.js';
import { createMethodDispatch, type DispatchContext } from './method-dispatch.js';
import { filterMetrics, ForwarderMetrics } from './metrics.js';
import { Sessions, type ListKind } from './sessions.js';
import { createStreamableHttp } from './streamable-http.js';
import { upstreamHealth, type CallToolResult, type SourceServer } from './tool-source.js';

export type { DispatchContext } from './method-dispatch.js';

/** The forwarder's options: the call pipeline's, plus its MCP server and HTTP front end. */
export interface CreateForwarderOptions extends CallPipelineOptions {
  /** The loaded `toolwire.config.json` (policy, auth, cache, redis, mcpServers, namespace). */
  config?: ToolwireConfig | object;
  serverInfo?: { name: string; version: string };
  instructions?: string;
  /**
   * Host names accepted in `Host`/`Origin` (DNS-rebinding protection). Default: loopback names.
   * `'*'` accepts any (for a forwarder behind a reverse proxy that checks hosts itself).
   */
  allowedHosts?: string[] | '*';
  /**
   * Origins accepted besides the forwarder's own (the `Host` it is reached by); default none, so a
   * page on any other origin, another port of localhost included, is refused. `'*'` accepts any.
   */
  allowedOrigins?: AllowedOrigins;
  /**
   * The request checks (`createHttpGuard` of `@toolwire/forwarder/http`), for an app that serves
   * its own routes beside the forwarder's with the same checks. Default: one made of
   * `allowedHosts` and `allowedOrigins`.
   */
  httpGuard?: HttpGuard;
  /** Idle legacy sessions are dropped after this long (default 30 min). */
  sessionIdleMs?: number;
  /**
   * The sessions and subscriptions. Pass one `Sessions` to every forwarder of a process (a config
   * reload makes a new forwarder) and to instances sharing its secret: sessions then work on all of
   * them, and open streams outlive a reload. Default: this forwarder's own, with a random secret,
   * closed by `close()`.
   */
  sessions?: Sessions;
  /** Largest request body accepted, in bytes (default 4 MiB); a larger one is answered 413. */
  maxBodyBytes?: number;
  /** Timeouts and connection caps of `listen()` (`createHttpListener` of `@toolwire/forwarder/http`). */
  listener?: HttpListenerOptions;
  /**
   * How long a client has to answer a server-to-client request (sampling, elicitation, roots) an
   * upstream sent it through the gateway (default 5 minutes); then the upstream gets a timeout
   * error and the client `notifications/cancelled`.
   */
  clientRequestTimeoutMs?: number;
  /**
   * Per-user OAuth (`mcpServers.<name>.auth.perUser`): the secret that signs its links and flow
   * (every instance of a fleet the same) and where users' tokens are kept (sealed with
   * `auth.userTokens.encryptionKey`; the store is closed with the forwarder). Default: a random
   * secret and memory.
   */
  userTokens?: { secret: Buffer; store: UserTokenStore };
}

export interface Forwarder {
  /** Node `http` handler: `/mcp`, `/servers/<name>/mcp`, `/metrics`; anything else 404. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Whether `handle` serves this path (`/mcp`, `/servers/<name>/mcp`, `/metrics`). */
  handles(path: string): boolean;
  /** Serves one MCP request; `server` set means the passthrough route of that upstream. */
  handleMcp(req: IncomingMessage, res: ServerResponse, route?: { server?: string }): void;
  listen(options?: {
    host?: string;
    port?: number;
  }): Promise<{ url: string; server: Server; close(): Promise<void> }>;
  /** The policy pipeline, for embedding (no HTTP): same checks, cache, metrics and audit. */
  callTool(name: string, args: unknown, context?: CallContext): Promise<CallToolResult>;
  /** Many calls at once, grouped by upstream, run in parallel; one failure never fails the rest. */
  batch(
    calls: BatchCall[],
    context?: CallContext & { concurrencyPerUpstream?: number },
  ): Promise<BatchResult[]>;
  /** Answers one JSON-RPC message (the transport-free core, used by stdio). */
  dispatch(message: unknown, context?: DispatchContext): Promise<unknown>;
  /** Prometheus text; with a token not granted `"*"`, only its own tools and upstreams. */
  metrics(token?: AuthToken): Promise<string>;
  readonly metricsContentType: string;
  /**
   * The source's upstreams, each `down` with a reason as soon as a call to it failed to connect,
   * a probe found it unreachable or its circuit breaker opened (what `/readyz` and `upstream_up` say).
   */
  servers(): SourceServer[];
  readonly pipeline: CallPipeline;
  /** Who is calling: `auth.tokens`, and `auth.jwt` access tokens. */
  readonly auth: Authenticator;
  /**
   * Resolves once the stores are connected (with `redis`: calls before that are limited and
   * cached per instance); rejects with the connection error after `timeoutMs` (default 5 s).
   */
  ready(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const MAX_BODY = 4 * 1024 * 1024;

/**
 * Creates the forwarder. It owns no upstream connections beyond its own lean HTTP pool. The parts:
 * the call pipeline (`call-pipeline.ts`), method dispatch (`method-dispatch.ts`) with the catalog
 * of resources and prompts (`catalog.ts`), sessions and subscriptions (`sessions.ts`,
 * `subscriptions.ts`, `session-store.ts`), and the streamable HTTP front end
 * (`streamable-http.ts`, which classifies each POST's era with `classify-era.ts`).
 */
export function createForwarder(options: CreateForwarderOptions): Forwarder {
  const config = validateConfig(options.config ?? {});
  const metrics = new ForwarderMetrics();
  const pinning = config.policy?.pinning?.mode ?? 'warn';
  const ownsPins = options.pins === undefined && pinning !== 'off';
  const pins =
    options.pins ??
    (pinning === 'off'
      ? undefined
      : new ToolPins({ mode: pinning, store: createMemoryPinStore() }));
  const jwt = config.auth?.jwt;
  // Pass the same verifier to the forwarders a reload makes (while auth.jwt is unchanged): its
  // issuer metadata and keys are kept.
  const accessTokens = jwt ? (options.accessTokens ?? createAccessTokenVerifier(jwt)) : undefined;
  const perUser = Object.values(config.mcpServers ?? {}).some(
    (server) => server.auth?.type === 'oauth' && server.auth.perUser === true,
  );
  const userOAuth =
    perUser && config.auth?.userTokens
      ? new UserOAuth({
          config,
          secret: options.userTokens?.secret ?? randomBytes(32),
          store: options.userTokens?.store ?? createMemoryUserTokenStore(),
          sealer: new UserTokenSealer(config.auth.userTokens.encryptionKey),
        })
      : undefined;
  const pipeline = new CallPipeline({
    ...options,
    config,
    metrics,
    ...(userOAuth ? { userOAuth } : {}),
    ...(pins ? { pins } : {}),
    ...(accessTokens ? { accessTokens } : {}),
  });
  if (ownsPins) void pins!.ready();
  const gateway = new GatewayMode(pipeline, options.source);
  const auth = createAuthenticator({
    tokens: authTokensOf(config),
    ...(accessTokens ? { verifier: accessTokens } : {}),
  });
  const metadataPaths = jwt ? protectedResourcePaths(jwt.audience) : new Set<string>();
  const ownsSessions = options.sessions === undefined;
  const sessions = options.sessions ?? new Sessions({ idleMs: options.sessionIdleMs });
  const allowedHosts = options.allowedHosts ?? LOOPBACK_HOSTS;
  const guard =
    options.httpGuard ??
    createHttpGuard({
      allowedHosts,
      allowedOrigins: options.allowedOrigins ?? (allowedHosts === '*' ? '*' : []),
    });
  let closed = false;

  // list_changed goes to every open legacy GET stream and every modern subscription.
  const broadcastListChanged = (kind: ListKind, server: string): void =>
    sessions.broadcast(kind, server);
  pipeline.onChange((server) => broadcastListChanged('tools', server));
  // Tool changes already arrive through the pipeline (which also invalidates the cache).
  const unsubscribeLists = options.source.onListChanged?.(({ server, kind }) => {
    if (kind !== 'tools') broadcastListChanged(kind, server);
  });

  const bridge = new ProtocolBridge({
    sessions,
    pipeline,
    ...(options.clientRequestTimeoutMs !== undefined
      ? { clientRequestTimeoutMs: options.clientRequestTimeoutMs }
      : {}),
    onServerRequest: (event) => recordServerRequest(event),
    onTask: (event) => {
      metrics.task(event.server, event.event);
      pipeline.audit({
        event: 'task',
        client: event.client,
        tool: `tasks/${event.event}`,
        upstream: event.server,
        durationMs: 0,
        outcome: event.event === 'failed' ? 'error' : event.event === 'refused' ? 'refused' : 'ok',
        method: event.event === 'created' ? 'tools/call' : `tasks/${event.event}`,
        taskId: event.taskId,
        ...(event.detail !== undefined ? { error: event.detail } : {}),
      });
    },
  });

  /** A server-to-client request's metric and audit line. */
  function recordServerRequest(event: ServerRequestEvent): void {
    metrics.serverRequest(event.server, event.method, event.outcome);
    pipeline.audit({
      event: 'server_request',
      client: event.client,
      tool: event.method,
      upstream: event.server,
      durationMs: Math.round(event.durationMs),
      outcome:
        event.outcome === 'answered' ? 'ok' : event.outcome === 'refused' ? 'refused' : 'error',
      method: event.method,
      ...(event.outcome !== 'answered' ? { error: event.detail ?? event.outcome } : {}),
    });
  }

  const dispatch = createMethodDispatch({
    pipeline,
    gateway,
    bridge,
    catalog: new Catalog(options.source, pipeline, config.policy?.timeoutMs ?? 30_000),
    sessions,
    serverInfo: options.serverInfo ?? { name: 'toolwire-forwarder', version: '0.1.0' },
    ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    cacheScope: config.auth ? 'private' : 'public',
    onToolsListed: updateGauges,
  });

  const handleMcp = createStreamableHttp({
    dispatch,
    sessions,
    bridge,
    pipeline,
    source: options.source,
    authenticate: (req) => auth.authenticate(req),
    guard,
    maxBodyBytes: options.maxBodyBytes ?? MAX_BODY,
    closed: () => closed,
    limits: (token) => pipeline.limitsOf(token),
  });

  /** Metrics text with the gauges (hidden tools, upstream health) brought up to date. */
  async function metricsText(token?: AuthToken): Promise<string> {
    const { hiddenByPolicy, unavailable } = pipeline.visibleTools(undefined);
    updateGauges(hiddenByPolicy, unavailable);
    const text = await metrics.text();
    const scope = pipeline.scope(token);
    return scope.all ? text : filterMetrics(text, scope);
  }

  function updateGauges(hiddenByPolicy: number, unavailable: number): void {
    metrics.toolsHidden.labels('policy').set(hiddenByPolicy);
    metrics.toolsHidden.labels('unavailable').set(unavailable);
    for (const server of servers()) {
      const health = upstreamHealth(server.status);
      const value = health.state === 'healthy' ? 1 : health.state === 'degraded' ? 0.5 : 0;
      metrics.upstreamUp.labels(server.name).set(value);
      metrics.upstreamConnected.labels(server.name).set(health.connected ? 1 : 0);
    }
  }

  /** The source's upstreams with what this forwarder's calls and probes saw laid over them. */
  function servers(): SourceServer[] {
    return options.source.servers().map((server) => pipeline.withLiveHealth(server));
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    // A browser client of a listed origin: its preflight is answered here, its answers readable.
    if (guard.cors(req, res)) return;
    const path = pathOf(req.url);
    if (jwt && metadataPaths.has(path)) return serveMetadata(req, res, jwt);
    if (userOAuth && path.startsWith(USER_OAUTH_PREFIX))
      return serveUserOAuth(userOAuth, guard, path, req, res);
    const route = routeOf(path);
    if (route === undefined) {
      sendJson(res, 404, { error: `Not found: ${path}` });
      return;
    }
    if (route === '/metrics') {
      void (async () => {
        guard.check(req);
        const token = await auth.authenticate(req);
        if (req.method !== 'GET') return sendJson(res, 404, { error: `Not found: ${path}` });
        const text = await metricsText(token);
        res.writeHead(200, { 'content-type': metrics.contentType }).end(text);
      })().catch((error: unknown) => sendHttpError(res, error));
      return;
    }
    if (route === '/mcp') return handleMcp(req, res);
    let server: string;
    try {
      server = decodePathSegment(route.server);
    } catch (error) {
      sendHttpError(res, error);
      return;
    }
    handleMcp(req, res, { server });
  }

  const listening = new Set<Server>();

  return {
    handle,
    handles: (path) =>
      routeOf(path) !== undefined ||
      metadataPaths.has(path) ||
      (userOAuth !== undefined && path.startsWith(USER_OAUTH_PREFIX)),
    handleMcp,
    dispatch,
    pipeline,
    auth,
    get metricsContentType() {
      return metrics.contentType;
    },
    metrics: metricsText,
    servers,
    callTool: (name, args, context) => pipeline.call(name, args, context),
    batch: (calls, context) => runBatch(pipeline, calls, context),
    async listen({ host = '127.0.0.1', port = 0 } = {}) {
      // Slow clients are cut off (headers within 10 s however they trickle, the whole request
      // within 30 s, idle keep-alive connections after 5 s), connections are capped, and a refusal
      // sent before its body was read is read by the client (lingering close).
      const { server } = createHttpListener(options.listener ?? {}, handle);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
      listening.add(server);
      const address = server.address() as AddressInfo;
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      return {
        url: `http://${shown}:${address.port}`,
        server,
        close: async () => {
          listening.delete(server);
          server.closeAllConnections();
          await new Promise<void>((resolve) => server.close(() => resolve()));
        },
      };
    },
    ready: (timeoutMs) => pipeline.ready(timeoutMs),
    async close() {
      closed = true;
      unsubscribeLists?.();
      bridge.close();
      // Shared sessions belong to whoever passed them in (their streams outlive this forwarder).
      if (ownsSessions) sessions.close();
      for (const server of listening) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      listening.clear();
      await pipeline.close();
      // Pins passed in belong to whoever passed them (a reload keeps them).
      if (ownsPins) await pins!.close();
      await options.userTokens?.store.close();
    },
  };
}

/**
 * RFC 9728 protected-resource metadata: public (no token, any origin may read it, as browser-based
 * clients discover the authorization server from it).
 */
function serveMetadata(
  req: IncomingMessage,
  res: ServerResponse,
  jwt: NonNullable<NonNullable<ToolwireConfig['auth']>['jwt']>,
): void {
  const cors = { 'access-control-allow-origin': '*' };
  if (req.method === 'OPTIONS') {
    res.writeHead(204, {
      ...cors,
      'access-control-allow-methods': 'GET',
      'access-control-max-age': '600',
    });
    res.end();
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendJson(res, 405, { error: 'Use GET' }, { allow: 'GET', ...cors });
    return;
  }
  sendJson(res, 200, protectedResourceMetadata(jwt), { ...cors, 'cache-control': 'max-age=300' });
}

/** The path of a request target, without its query. */
function pathOf(target = '/'): string {
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

/** The forwarder's routes: the aggregated endpoint, one upstream's passthrough, the metrics. */
function routeOf(path: string): '/mcp' | '/metrics' | { server: string } | undefined {
  if (path === '/mcp' || path === '/metrics') return path;
  const passthrough = /^\/servers\/([^/]+)\/mcp$/.exec(path);
  return passthrough ? { server: passthrough[1]! } : undefined;
}
