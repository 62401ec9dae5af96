import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Tracer } from '@opentelemetry/api';
import type { AnyTool } from '@toolwire/schema';
import type { PathArgumentRule } from './argument-rules.js';
import type { AuditSink } from './audit-log.js';
import { runBatch, type BatchCall, type BatchResult } from './batch.js';
import { CallPipeline, type CallContext, type CallerToolsProvider } from './call-pipeline.js';
import { Catalog } from './catalog.js';
import type { CircuitBreakerOptions } from './circuit-breaker.js';
import {
  authTokensOf,
  validateConfig,
  type AuthToken,
  type ToolwireConfig,
} from '@toolwire/config';
import {
  LOOPBACK_HOSTS,
  authenticate,
  decodePathSegment,
  type AllowedOrigins,
  sendHttpError,
  sendJson,
} from './http-helpers.js';
import { GatewayMode } from './gateway-mode.js';
import { createMethodDispatch, type DispatchContext } from './method-dispatch.js';
import { filterMetrics, ForwarderMetrics } from './metrics.js';
import type { RateLimiter } from './rate-limiter.js';
import type { ResultCacheStore } from './result-cache.js';
import type { BreakerStateStore } from './breaker-store.js';
import { Sessions, type ListKind } from './sessions.js';
import { createStreamableHttp } from './streamable-http.js';
import {
  upstreamHealth,
  type CallToolResult,
  type SourceServer,
  type ToolSource,
} from './tool-source.js';

export type { DispatchContext } from './method-dispatch.js';

export interface CreateForwarderOptions {
  /** The registry (`@toolwire/mcp`'s `createRegistry(...)`) or any `ToolSource`. */
  source: ToolSource;
  /** The loaded `toolwire.config.json` (policy, auth, cache, redis, mcpServers, namespace). */
  config?: ToolwireConfig | object;
  /** Extra in-process tools (`defineTool` from `@toolwire/schema`), exposed under their own names. */
  nativeTools?: AnyTool[];
  serverInfo?: { name: string; version: string };
  instructions?: string;
  /**
   * Per-upstream streamable HTTP endpoints for the fast path. By default the `url` of
   * `config.mcpServers.<name>` is used; `false` sends that upstream's calls through the source.
   */
  upstreams?: Record<
    string,
    | { url: string; headers?: Record<string, string>; protocol?: 'auto' | 'modern' | 'legacy' }
    | false
  >;
  /** Glob over exposed names → timeout in ms (default `config.policy.timeoutMs`, else 30 s). */
  toolTimeouts?: Record<string, number>;
  /** Path arguments that must stay inside allowed roots. */
  argumentRules?: PathArgumentRule[];
  /** Validate arguments against the tool's input schema before forwarding (default true). */
  validateArguments?: boolean;
  /**
   * Cache results of tools annotated `readOnlyHint` (default `config.cache.readOnlyTools`, else
   * false); `config.cache.tools` opts tools in by name.
   */
  cacheReadOnlyTools?: boolean;
  breaker?: CircuitBreakerOptions;
  /** Retry read-only/idempotent tools once on timeout or connection loss (default true). */
  retry?: boolean;
  /** Audit sink; default JSON lines on stderr; `false` turns auditing off. */
  audit?: AuditSink | false;
  /** Log arguments verbatim in the audit line (default false: redacted to their types). */
  auditArguments?: boolean;
  tracer?: Tracer;
  /** Default: shared through `config.redis` when set, else in process memory. */
  rateLimiter?: RateLimiter;
  /**
   * Where results are cached. Default: `RedisResultCache` (shared, with a local copy in front)
   * when `config.redis` is set, else the in-memory `ResultCache`. A store passed here is not
   * closed by `close()`.
   */
  resultCache?: ResultCacheStore;
  /**
   * Where circuit-breaker transitions are shared. Default: `RedisBreakerStateStore` when
   * `config.redis` is set, else a `MemoryBreakerStateStore` of this forwarder alone. A store
   * passed here is not closed by `close()`.
   */
  breakerState?: BreakerStateStore;
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
  /** Ping idle streamable-HTTP upstreams this often, ±25% (default 2000 ms; 0 turns it off). */
  probeIntervalMs?: number;
  /** Tools made per caller on `/mcp` (code mode's `execute_code`), run as that caller. */
  callerTools?: CallerToolsProvider;
}

export interface Forwarder {
  /** Node `http` handler: `/mcp`, `/servers/<name>/mcp`, `/metrics`; anything else 404. */
  handle(req: IncomingMessage, res: ServerResponse): void;
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
  const pipeline = new CallPipeline({ ...options, config, metrics });
  const gateway = new GatewayMode(pipeline, options.source);
  const tokens = new Map(authTokensOf(config).map((token) => [token.token, token]));
  const ownsSessions = options.sessions === undefined;
  const sessions = options.sessions ?? new Sessions({ idleMs: options.sessionIdleMs });
  const allowedHosts = options.allowedHosts ?? LOOPBACK_HOSTS;
  let closed = false;

  // list_changed goes to every open legacy GET stream and every modern subscription.
  const broadcastListChanged = (kind: ListKind, server: string): void =>
    sessions.broadcast(kind, server);
  pipeline.onChange((server) => broadcastListChanged('tools', server));
  // Tool changes already arrive through the pipeline (which also invalidates the cache).
  const unsubscribeLists = options.source.onListChanged?.(({ server, kind }) => {
    if (kind !== 'tools') broadcastListChanged(kind, server);
  });

  const dispatch = createMethodDispatch({
    pipeline,
    gateway,
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
    pipeline,
    source: options.source,
    tokens,
    allowedHosts,
    allowedOrigins: options.allowedOrigins ?? (allowedHosts === '*' ? '*' : []),
    maxBodyBytes: options.maxBodyBytes ?? MAX_BODY,
    closed: () => closed,
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
    const url = req.url ?? '/';
    const path = url.includes('?') ? url.slice(0, url.indexOf('?')) : url;
    if (path === '/mcp') return handleMcp(req, res);
    const passthrough = /^\/servers\/([^/]+)\/mcp$/.exec(path);
    if (passthrough) {
      let server: string;
      try {
        server = decodePathSegment(passthrough[1]!);
      } catch (error) {
        sendHttpError(res, error);
        return;
      }
      return handleMcp(req, res, { server });
    }
    if (path === '/metrics' && req.method === 'GET') {
      void (async () => {
        const text = await metricsText(authenticate(req, tokens));
        res.writeHead(200, { 'content-type': metrics.contentType }).end(text);
      })().catch((error: unknown) => sendHttpError(res, error));
      return;
    }
    sendJson(res, 404, { error: `Not found: ${path}` });
  }

  const listening = new Set<Server>();

  return {
    handle,
    handleMcp,
    dispatch,
    pipeline,
    get metricsContentType() {
      return metrics.contentType;
    },
    metrics: metricsText,
    servers,
    callTool: (name, args, context) => pipeline.call(name, args, context),
    batch: (calls, context) => runBatch(pipeline, calls, context),
    async listen({ host = '127.0.0.1', port = 0 } = {}) {
      // Slow clients are cut off: headers within 10 s, the whole request within 30 s, idle
      // keep-alive connections closed after 5 s.
      const server = createServer(
        {
          headersTimeout: 10_000,
          requestTimeout: 30_000,
          keepAliveTimeout: 5_000,
          connectionsCheckingInterval: 1_000,
        },
        handle,
      );
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
      // Shared sessions belong to whoever passed them in (their streams outlive this forwarder).
      if (ownsSessions) sessions.close();
      for (const server of listening) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      listening.clear();
      await pipeline.close();
    },
  };
}
