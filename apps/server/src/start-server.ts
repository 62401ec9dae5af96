import { createHash } from 'node:crypto';
import { existsSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import {
  createForwarder,
  type AuditEntry,
  type AuthToken,
  type CircuitBreakerOptions,
  Sessions,
  isGatewayed,
  isKnownProtocol,
  SUPPORTED_PROTOCOLS,
  upstreamHealth,
} from '@toolwire/forwarder';
import { createRegistry, loadConfig, type Registry, type ToolwireConfig } from '@toolwire/mcp/node';
import { Gauge } from 'prom-client';
import { queuedConnections } from './accept-queue.js';
import { CallLog } from './call-log.js';
import type { Runtime } from './runtime.js';
import { handleChatCompletions, handleModels, sendOpenAiError } from './chat-completions.js';
import { handleResponses } from './responses-endpoint.js';
import { handleDashboardApi, visibleServers } from './dashboard-api.js';
import { DASHBOARD_HTML } from './dashboard-page.js';
import { embeddedDefaultConfig, toolwireCacheDir } from './default-config.js';
import {
  HttpError,
  LOOPBACK_HOSTS,
  authenticate,
  checkHost,
  checkJsonContentType,
  decodePathSegment,
  isLongLived,
  markLongLived,
  sendError,
  sendJson,
} from './http-util.js';
import { mcpCodeMode } from './mcp-code-mode.js';
import { createJsonLogger, logLevelFromEnv, type Logger } from './logger.js';
import { createMemoryState, createRedisState, type SharedState } from './shared-state.js';

export const SERVER_VERSION = '0.1.0';
export const DEFAULT_PORT = 8787;
/** `toolwire-server --drain-ms` default: longer than a load balancer's idle keep-alive (nginx: 4 s in the README). */
export const DEFAULT_DRAIN_MS = 5_000;
export const DEFAULT_CONFIG_FILE = 'toolwire.config.json';

export interface StartServerOptions {
  /** A config file; default `./toolwire.config.json` when present, else the embedded default. */
  configPath?: string;
  /** An already loaded config object (wins over `configPath`; no file watching). */
  config?: ToolwireConfig;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8787; 0 picks a free port. */
  port?: number;
  /**
   * Host names accepted in `Host`/`Origin` (DNS-rebinding protection). Default: loopback names
   * plus the `host` bound to; `'*'` when a reverse proxy checks hosts itself.
   */
  allowedHosts?: string[] | '*';
  /** Largest request body accepted, in bytes (default 4 MiB). */
  maxBodyBytes?: number;
  /** A request's headers must arrive within this (default 10 s); slow senders are cut off. */
  headersTimeoutMs?: number;
  /** A whole request, body included, must arrive within this (default 30 s). */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this (default 5 s). */
  keepAliveTimeoutMs?: number;
  /** How long shutdown waits for in-flight requests (default 10 s). */
  shutdownGraceMs?: number;
  /**
   * Draining before a shutdown (default 0; `toolwire-server --drain-ms`, default 5000): for this
   * long `close()` keeps serving as before, with `/readyz` answering 503 so a load balancer moves
   * its traffic away; then it stops listening and every answer carries `Connection: close`.
   */
  drainMs?: number;
  /** Reload when the config file changes (default true when the config came from a file). */
  watchConfig?: boolean;
  /** Where JSON log lines go (default stdout). */
  logStream?: Writable;
  /** Working directory for relative config paths (default `process.cwd()`). */
  cwd?: string;
  /** Registry restart backoff (tests use short ones). */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Per-upstream circuit breaker (default: open after 5 failures, probe after 10 s). */
  breaker?: CircuitBreakerOptions;
}

export interface RunningServer {
  /** `http://127.0.0.1:8787` */
  url: string;
  /** Re-reads the config and swaps it in; in-flight requests finish on the old one. */
  reload(): Promise<void>;
  /**
   * Graceful: drains for `drainMs` (not ready, still serving), then stops accepting, closes each
   * connection after its answer, lets in-flight requests finish, stops stdio children.
   */
  close(): Promise<void>;
  /** `close()` without the drain. */
  stopNow(): Promise<void>;
  /** The config in use and where it came from (`undefined` for the embedded default). */
  readonly configFile: string | undefined;
  /** The running pieces (for embedding and tests). */
  readonly runtime: Runtime;
}

interface ConfigSource {
  load(): ToolwireConfig;
  file: string | undefined;
}

function configSource(options: StartServerOptions): ConfigSource {
  if (options.config) {
    const config = options.config;
    return { load: () => loadConfig(config), file: undefined };
  }
  const cwd = options.cwd ?? process.cwd();
  const file =
    options.configPath !== undefined
      ? resolve(cwd, options.configPath)
      : existsSync(resolve(cwd, DEFAULT_CONFIG_FILE))
        ? resolve(cwd, DEFAULT_CONFIG_FILE)
        : undefined;
  if (file === undefined) return { load: () => loadConfig(embeddedDefaultConfig()), file };
  return { load: () => loadConfig(file), file };
}

function registryKeyOf(config: ToolwireConfig): string {
  const { mcpServers, nativeTools, namespace, policy, gateway } = config;
  return JSON.stringify({
    mcpServers,
    nativeTools,
    namespace,
    timeoutMs: policy?.timeoutMs,
    gateway: gateway?.mode,
  });
}

/**
 * Starts the gateway: `@toolwire/forwarder` over HTTP with `/mcp`, `/servers/<name>/mcp`,
 * `/healthz`, `/readyz`, `/metrics`, the dashboard at `/`, `/v1/chat/completions` and `/v1/responses`.
 */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const logOptions = { level: logLevelFromEnv(), base: { service: 'toolwire-server' } };
  const logger: Logger = createJsonLogger(options.logStream ?? process.stdout, logOptions);
  // The per-call audit line skips the redaction pass (the largest part of a call's cost in the
  // gateway, bench/server.bench.mjs): its keys are fixed and its arguments are redacted to their
  // types by the forwarder (no `auditArguments` here), so no secret-named key can carry a value.
  const auditLogger: Logger = createJsonLogger(options.logStream ?? process.stdout, {
    ...logOptions,
    redact: false,
  });
  const source = configSource(options);
  const initialConfig = source.load();
  const host = options.host ?? '127.0.0.1';
  const allowedHosts: string[] | '*' = options.allowedHosts ?? [
    ...new Set([
      ...LOOPBACK_HOSTS,
      ...(host === '0.0.0.0' || host === '::' ? [] : [host.toLowerCase()]),
    ]),
  ];
  // Origins other than the gateway's own: only those named in allowedHosts beyond the loopback
  // defaults (a page on another port of localhost is another origin).
  const allowedOrigins: string[] | '*' =
    options.allowedHosts === '*'
      ? '*'
      : (options.allowedHosts ?? [])
          .map((name) => name.toLowerCase())
          .filter((name) => !LOOPBACK_HOSTS.includes(name) && name !== host.toLowerCase());
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const callLog = new CallLog(200);
  let openConnections = 0;
  const shared: SharedState = initialConfig.redis
    ? createRedisState(initialConfig.redis, logger)
    : createMemoryState();
  let sessions: Sessions;
  try {
    // One set of sessions for every forwarder a reload swaps in, signed with the secret every
    // instance shares: a session works on any instance and its streams outlive reloads.
    sessions = new Sessions({
      secret: await shared.sessionSecret(),
      // Ended sessions and cancellations go through the shared state (Redis for a fleet).
      store: shared,
      onStream: markLongLived,
    });
  } catch (error) {
    await shared.close();
    throw error;
  }

  const audit = (entry: AuditEntry): void => {
    // The dashboard's call log shows finished calls; the "initiated" line is for the log only.
    if (entry.outcome !== 'initiated') callLog.push(entry);
    // The line's own `time` is the logger's (the same millisecond): one `time` key, not two.
    const { time: _time, ...fields } = entry;
    auditLogger.info('tool call', { ...fields, event: 'tool_call' });
  };

  const warnedRevisions = new Set<string>();
  /** An upstream that negotiated a revision this gateway does not know gets one warning. */
  function warnUnknownRevisions(registry: Registry): void {
    for (const server of registry.servers()) {
      const revision = server.protocolVersion;
      if (!revision || isKnownProtocol(revision)) continue;
      const key = `${server.name}@${revision}`;
      if (warnedRevisions.has(key)) continue;
      warnedRevisions.add(key);
      logger.warn('upstream negotiated a protocol revision this gateway does not know', {
        server: server.name,
        protocolVersion: revision,
        known: SUPPORTED_PROTOCOLS,
      });
    }
  }

  async function buildRuntime(config: ToolwireConfig, previous?: Runtime): Promise<Runtime> {
    const registryKey = registryKeyOf(config);
    let registry: Registry;
    if (previous && previous.registryKey === registryKey) registry = previous.registry;
    else {
      registry = createRegistry({
        config,
        cacheFile: join(toolwireCacheDir(), 'server-tools-cache.json'),
        clientInfo: { name: 'toolwire-server', version: SERVER_VERSION },
        ...(options.backoff ? { backoff: options.backoff } : {}),
        // Servers behind a gateway tool connect on first use (seed 004).
        lazy: (name) => isGatewayed(config, name),
        logger: {
          warn: (message) => logger.warn(message, { component: 'registry' }),
          error: (message) => logger.error(message, { component: 'registry' }),
          debug: (message) => logger.debug(message, { component: 'registry' }),
        },
      });
      const started = registry;
      registry.onToolsChanged(() => warnUnknownRevisions(started));
      await registry.start();
      warnUnknownRevisions(registry);
    }
    const forwarder = createForwarder({
      // The registry is the forwarder's ToolSource. With `redis` in the config the forwarder itself
      // shares rate limits, cached results and circuit-breaker state through Redis.
      source: registry,
      config: config as Record<string, unknown>,
      audit,
      allowedHosts,
      allowedOrigins,
      serverInfo: { name: 'toolwire-server', version: SERVER_VERSION },
      sessions,
      maxBodyBytes: maxBody,
      ...(options.breaker ? { breaker: options.breaker } : {}),
      // `execute_code` on /mcp when code mode is on (loaded on first use).
      callerTools: mcpCodeMode(config),
    });
    if (config.redis) {
      // Share from the first call: wait for the forwarder's Redis stores (they answer locally
      // until then, and again whenever Redis goes away).
      await forwarder.ready().catch((error: Error) =>
        logger.warn('redis unavailable: rate limits, cache and breakers per instance for now', {
          error: error.message,
        }),
      );
    }
    // Gauges of the HTTP server itself, read at scrape time, on the forwarder's registry.
    const registers = [forwarder.pipeline.metrics.registry];
    new Gauge({
      name: 'toolwire_server_active_connections',
      help: 'Open TCP connections to the gateway.',
      registers,
      collect() {
        this.set(openConnections);
      },
    });
    new Gauge({
      name: 'toolwire_server_sessions',
      help: '2025-era MCP sessions this instance served in the last 30 minutes or still streaming.',
      registers,
      collect() {
        this.set(sessions.localCount);
      },
    });
    return {
      config,
      registry,
      forwarder,
      tokens: new Map((config.auth?.tokens ?? []).map((t) => [t.token, t as AuthToken])),
      active: new Set(),
      registryKey,
    };
  }

  // Set once the port is bound: a busy port is reported before any MCP server is started.
  let runtime!: Runtime;
  let markStarted!: () => void;
  const started = new Promise<void>((resolvePromise) => (markStarted = resolvePromise));
  let shuttingDown = false;
  // Set at the start of close(): still serving, but not ready.
  let draining = false;
  // Set once the listener is closed: answers close their connections from then on.
  let stoppedListening = false;
  const startedAt = Date.now();

  async function retire(old: Runtime, reuseRegistry: boolean): Promise<void> {
    const deadline = Date.now() + (options.shutdownGraceMs ?? 10_000);
    while (inflightCalls(old) > 0 && Date.now() < deadline) await sleep(25);
    await old.forwarder.close();
    if (!reuseRegistry) await old.registry.close();
  }

  // Reloads run one after another, and each stands alone: a refused one must not stop later ones.
  let reloading: Promise<void> = Promise.resolve();
  function reload(): Promise<void> {
    const next = reloading
      .catch(() => {})
      .then(async () => {
        if (draining || shuttingDown) return;
        let config: ToolwireConfig;
        try {
          config = source.load();
        } catch (error) {
          logger.error('config reload refused: keeping the running configuration', {
            error: (error as Error).message,
            file: source.file,
          });
          throw error;
        }
        if ((config.redis ?? '') !== (initialConfig.redis ?? '')) {
          logger.warn('a change of "redis" takes effect after a restart', { file: source.file });
        }
        const old = runtime;
        runtime = await buildRuntime(config, old);
        logger.info('config reloaded', {
          file: source.file,
          tools: runtime.forwarder.pipeline.tools().size,
        });
        // Connected clients hear of a differing tool list at once (and of prompts and resources
        // whenever the upstreams changed: those lists are not held here to compare).
        if (toolListing(old) !== toolListing(runtime)) sessions.broadcast('tools');
        if (old.registryKey !== runtime.registryKey) {
          sessions.broadcast('prompts');
          sessions.broadcast('resources');
        }
        void retire(old, runtime.registry === old.registry).catch((error: Error) =>
          logger.error('closing the previous configuration failed', { error: error.message }),
        );
      });
    reloading = next;
    return next;
  }

  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: Math.max(options.requestTimeoutMs ?? 30_000, headersTimeout),
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 5_000,
      // How often Node looks for connections past those timeouts (default 30 s).
      connectionsCheckingInterval: Math.min(1_000, headersTimeout),
    },
    (req, res) => {
      if (runtime === undefined) {
        void started.then(() => handle(req, res));
        return;
      }
      handle(req, res);
    },
  );

  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  /** Open connections with no request on them (keep-alive, waiting for the next one). */
  function idleSockets(): number {
    const busy = new Set<unknown>();
    for (const res of runtime.active) busy.add(res.socket);
    let idle = 0;
    for (const socket of sockets) if (!busy.has(socket)) idle++;
    return idle;
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const current = runtime;
    current.active.add(res);
    const done = (): void => {
      current.active.delete(res);
    };
    // Once the listener is closed no connection is kept for another request: a keep-alive peer
    // (a load balancer's pool) opens its next one, which is refused here and goes elsewhere. A GET
    // while draining (a stream reopened here) does not keep its connection either: when the stream
    // ends at the close, the peer must not send its next request on it.
    if (stoppedListening || (draining && req.method === 'GET')) closeAfter(res);
    res.once('finish', done);
    res.once('close', done);
    route(current, req, res).catch((error: unknown) => {
      if (!(error instanceof HttpError)) {
        logger.error('request failed', { path: req.url, error: (error as Error).message });
      }
      if (req.url?.startsWith('/v1/')) sendOpenAiError(res, error);
      else sendError(res, error);
    });
  }
  // When connections were accepted: a connection opened as the listener closes can be reset in
  // the kernel's accept queue (nginx then answers 502 for a POST it had already sent on it).
  let acceptedTotal = 0;
  let acceptedBeforeLastSecond = 0;
  const acceptedWindow = setInterval(() => (acceptedBeforeLastSecond = acceptedTotal), 1000);
  acceptedWindow.unref();
  server.on('connection', (socket) => {
    openConnections++;
    acceptedTotal++;
    socket.once('close', () => openConnections--);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // A request that took too long answers 408 (Node's timeouts); anything else malformed, 400.
    const status =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\n\r\n`);
    logger.debug('client error', { error: error.message });
  });

  async function route(current: Runtime, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    const query = target.indexOf('?');
    // The MCP routes need only the path; a URL is parsed for the routes that read the query.
    const path = query === -1 ? target : target.slice(0, query);
    // A load balancer's health check carries no token and may send any Host: with auth
    // configured it gets the status word alone, and nothing else is readable without a token.
    const anonymous = current.tokens.size > 0 && req.headers.authorization === undefined;
    if (path === '/healthz') {
      sendJson(res, 200, {
        status: 'ok',
        ...(anonymous ? {} : { uptimeSeconds: Math.round((Date.now() - startedAt) / 1000) }),
      });
      return;
    }
    if (shuttingDown) {
      throw new HttpError(503, 'The gateway is shutting down', -32603, { connection: 'close' });
    }
    if (draining && path === '/readyz' && req.method === 'GET') {
      // Not ready, for everyone alike (before authentication): a load balancer takes it out.
      sendJson(res, 503, { status: 'draining' });
      return;
    }
    if (anonymous && path === '/readyz' && req.method === 'GET') {
      const { status, code } = readiness(current);
      sendJson(res, code, { status });
      return;
    }
    checkHost(req, allowedHosts, allowedOrigins);
    checkJsonContentType(req);
    if (path === '/mcp') return current.forwarder.handleMcp(req, res);
    const passthrough = /^\/servers\/([^/]+)\/mcp$/.exec(path);
    if (passthrough) {
      return current.forwarder.handleMcp(req, res, {
        server: decodePathSegment(passthrough[1]!),
      });
    }
    if (path === '/' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy':
          "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:",
        'x-frame-options': 'DENY',
      });
      res.end(req.method === 'HEAD' ? undefined : DASHBOARD_HTML);
      return;
    }
    const token = authenticate(req, current.tokens);
    if (path === '/readyz' && req.method === 'GET') {
      // The gateway's readiness is the same for everyone; the details follow the token's scope.
      const { status, code } = readiness(current);
      sendJson(res, code, {
        status,
        tools: current.forwarder.pipeline.visibleTools(token).tools.length,
        servers: visibleServers(current, token),
      });
      return;
    }
    if (path === '/metrics' && req.method === 'GET') {
      const text = await current.forwarder.metrics(token);
      res.writeHead(200, { 'content-type': current.forwarder.metricsContentType }).end(text);
      return;
    }
    if (path === '/v1/chat/completions') {
      if (req.method !== 'POST') throw new HttpError(405, 'Use POST', -32600, { allow: 'POST' });
      return handleChatCompletions({ runtime: current, token, shared, logger, maxBody }, req, res);
    }
    if (path === '/v1/responses') {
      if (req.method !== 'POST') throw new HttpError(405, 'Use POST', -32600, { allow: 'POST' });
      return handleResponses({ runtime: current, token, shared, logger, maxBody }, req, res);
    }
    if (path === '/v1/models' && req.method === 'GET') return handleModels(current, res);
    if (path.startsWith('/api/')) {
      return handleDashboardApi(
        { runtime: current, token, shared, callLog, maxBody, startedAt },
        path,
        new URL(target, 'http://localhost'),
        req,
        res,
      );
    }
    sendJson(res, 404, { error: { message: `Not found: ${path}` } });
  }

  try {
    await new Promise<void>((resolvePromise, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? DEFAULT_PORT, host, () => {
        server.off('error', reject);
        resolvePromise();
      });
    });
  } catch (error) {
    sessions.close();
    await shared.close();
    throw error;
  }
  try {
    runtime = await buildRuntime(initialConfig);
  } catch (error) {
    await new Promise<void>((r) => server.close(() => r()));
    sessions.close();
    await shared.close();
    throw error;
  }
  markStarted();
  const address = server.address() as AddressInfo;
  const family = address.family === 'IPv6' ? 'IPv6' : 'IPv4';
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}`;

  let watcher: FSWatcher | undefined;
  if (source.file && (options.watchConfig ?? true)) {
    const file = source.file;
    let lastHash = hashFile(file);
    let timer: NodeJS.Timeout | undefined;
    // Watch the folder: editors replace the file rather than write it in place.
    watcher = watch(dirname(file), (_event, name) => {
      if (name !== null && name !== basename(file)) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        const hash = hashFile(file);
        if (hash === undefined || hash === lastHash) return;
        lastHash = hash;
        logger.info('config file changed', { file });
        reload().catch(() => {});
      }, 150);
    });
    watcher.unref();
  }

  logger.info('listening', {
    url,
    mcp: `${url}/mcp`,
    dashboard: `${url}/`,
    config: source.file ?? 'embedded default',
    servers: runtime.registry.servers().map((s) => ({ name: s.name, status: s.status })),
    tools: runtime.forwarder.pipeline.tools().size,
    redis: shared.kind === 'redis',
  });

  let closing: Promise<void> | undefined;
  async function close(drainMs = options.drainMs ?? 0): Promise<void> {
    closing ??= (async () => {
      watcher?.close();
      draining = true;
      const acceptedBeforeDrain = acceptedTotal;
      if (drainMs > 0) {
        logger.info('draining', { drainMs, inflight: inflightCalls(runtime) });
        // Long-lived streams (GET streams, subscriptions) end now: their clients reconnect through
        // the load balancer.
        for (const res of runtime.active) if (isLongLived(res)) res.end();
        // Keep-alive connections are kept meanwhile. Answering `Connection: close` here would make
        // a load balancer that does not read /readyz (nginx) open a new connection for each
        // request it still sends here, and any of them can be in the kernel's accept queue at the
        // moment the listener closes: Linux resets those, after nginx has sent its POST on one.
        await sleep(drainMs);
      }
      // No new connections: a peer's connect is refused, which a load balancer retries elsewhere
      // (nginx resends even a POST it could not send). A request already on a connection is served.
      logger.info('shutting down', {
        inflight: inflightCalls(runtime),
        // Connections accepted in the last second and since draining began: under load, with
        // keep-alive kept, both stay near zero (each one could have been reset in the queue).
        acceptedLastSecond: acceptedTotal - acceptedBeforeLastSecond,
        acceptedWhileDraining: acceptedTotal - acceptedBeforeDrain,
      });
      // Closed when the kernel's accept queue is empty (Linux tells), at once when the look
      // answers: a connection completed between the kernel's answer and the close is the only one
      // that can still be reset. The look is read off the event loop, which meanwhile accepts and
      // serves: a blocked loop is what makes a load balancer open new connections here.
      let looks = 0;
      while (looks++ < 100) {
        if (!((await queuedConnections(address.port, family)) ?? 0)) break;
        await new Promise<void>((r) => setImmediate(r));
      }
      const closed = new Promise<void>((r) => net.Server.prototype.close.call(server, () => r()));
      stoppedListening = true;
      for (const res of runtime.active) if (!res.headersSent) closeAfter(res);
      if (drainMs === 0) server.closeIdleConnections();
      await reloading.catch(() => {});
      const deadline = Date.now() + (options.shutdownGraceMs ?? 10_000);
      // Long-lived streams (GET, subscriptions) are not in-flight calls: they are ended below.
      while (inflightCalls(runtime) > 0 && Date.now() < deadline) await sleep(20);
      // After a drain, idle keep-alive connections are left for the peer to close (its idle
      // timeout is shorter than ours): closing one here races a request the peer sends on it.
      // A request still sent on one is answered with `Connection: close`.
      const idleDeadline = Date.now() + (options.keepAliveTimeoutMs ?? 5_000) + 500;
      while (drainMs > 0 && idleSockets() > 0 && Date.now() < idleDeadline) await sleep(20);
      while (inflightCalls(runtime) > 0 && Date.now() < deadline) await sleep(20);
      // Non-zero numbers here are connections cut under their peer (a 502 at a load balancer).
      logger.info('closing connections', {
        // More than 1: connections were waiting in the accept queue when the listener was due to close.
        acceptQueueLooks: looks,
        idle: idleSockets(),
        inflight: inflightCalls(runtime),
      });
      shuttingDown = true;
      clearInterval(acceptedWindow);
      // Streams still open are cut before they end: a stream ended cleanly on a kept-alive
      // connection would invite the peer's next request just as the instance stops.
      server.closeAllConnections();
      sessions.close();
      await runtime.forwarder.close();
      await closed;
      await runtime.registry.close();
      await shared.close();
      logger.info('stopped');
    })();
    return closing;
  }

  return {
    url,
    reload,
    close: () => close(),
    stopNow: () => close(0),
    configFile: source.file,
    get runtime() {
      return runtime;
    },
  };
}

/**
 * `/readyz`'s status word and code, the same for every caller: 503 `unavailable` when every enabled
 * upstream is down, 200 `degraded` when some are not healthy, else 200 `ready`. Calls, probes and
 * breakers of the forwarder decide at once (`withLiveHealth`); an idle (lazy, not yet connected)
 * upstream is healthy: it connects on first use.
 */
function readiness(runtime: Runtime): {
  status: 'ready' | 'degraded' | 'unavailable';
  code: number;
} {
  const health = runtime.registry
    .servers()
    .map((s) => runtime.forwarder.pipeline.withLiveHealth(s))
    .filter((s) => s.status !== 'disabled')
    .map((s) => upstreamHealth(s.status).state);
  if (health.length > 0 && health.every((state) => state === 'down')) {
    return { status: 'unavailable', code: 503 };
  }
  return { status: health.some((state) => state !== 'healthy') ? 'degraded' : 'ready', code: 200 };
}

/** What a client of `/mcp` lists, to tell whether a reload changed it. */
function toolListing(runtime: Runtime): string {
  return JSON.stringify(
    runtime.forwarder.pipeline
      .visibleTools(undefined)
      .tools.map(({ tool }) => [
        tool.name,
        tool.description,
        tool.inputSchema,
        tool.outputSchema,
        tool.annotations,
      ]),
  );
}

/**
 * Answers with `Connection: close` whatever headers the handler sets later (an event stream's
 * `keep-alive` included): `writeHead` with headers goes through `setHeader` once one was set.
 */
function closeAfter(res: ServerResponse): void {
  res.setHeader('connection', 'close');
  const setHeader = res.setHeader.bind(res);
  res.setHeader = (name: string, value: number | string | readonly string[]) =>
    name.toLowerCase() === 'connection' ? res : setHeader(name, value);
}

function inflightCalls(runtime: Runtime): number {
  let count = 0;
  for (const res of runtime.active) if (!isLongLived(res)) count++;
  return count;
}

function hashFile(file: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
