import type { IncomingMessage, ServerResponse } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { type AuditEntry, type CircuitBreakerOptions, Sessions } from '@toolwire/forwarder';
import type { ToolwireConfig } from '@toolwire/mcp/node';
import { queuedConnections } from './accept-queue.js';
import { runtimeBuilder } from './build-runtime.js';
import { CallLog } from './call-log.js';
import { sendOpenAiError } from './openai-error.js';
import { configSource, watchConfigFile } from './config-source.js';
import {
  HttpError,
  LOOPBACK_HOSTS,
  createHttpGuard,
  createHttpListener,
  isLongLived,
  markLongLived,
  sendError,
} from './http-util.js';
import { createJsonLogger, logLevelFromEnv, type Logger } from './logger.js';
import { toolListing } from './readiness.js';
import { createRouter } from './routes.js';
import { usesCodeMode, warmUpCodeMode } from './code-mode-warm-up.js';
import type { Runtime } from './runtime.js';
import { createMemoryState, createRedisState, type SharedState } from './shared-state.js';
import { pinsKeeper } from './tool-pins.js';

export { SERVER_VERSION } from './build-runtime.js';
export { DEFAULT_CONFIG_FILE } from './config-source.js';
export const DEFAULT_PORT = 8787;
/** `toolwire-server --drain-ms` default: longer than a load balancer's idle keep-alive (nginx: 4 s in the README). */
export const DEFAULT_DRAIN_MS = 5_000;

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
  /** A request's headers must arrive within this (default 10 s), however slowly they trickle. */
  headersTimeoutMs?: number;
  /** A whole request, body included, must arrive within this (default 30 s). */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this (default 5 s). */
  keepAliveTimeoutMs?: number;
  /** Open connections in all (default 4096); one more is answered 503 and closed. */
  maxConnections?: number;
  /**
   * Open connections from one client address (default 1024); one more is answered 503 and closed.
   * Behind a reverse proxy every connection comes from its address: raise this to `maxConnections`.
   */
  maxConnectionsPerAddress?: number;
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
  /**
   * How long a client has to answer a server-to-client request (sampling, elicitation, roots)
   * before the upstream is told it timed out (default 5 minutes).
   */
  clientRequestTimeoutMs?: number;
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
  // One guard for every route: the forwarder's (/mcp, /servers/<name>/mcp, /metrics) and the app's.
  const guard = createHttpGuard({ allowedHosts, allowedOrigins, setting: '--allowed-hosts' });
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const callLog = new CallLog(200);
  const shared: SharedState = initialConfig.redis
    ? createRedisState(initialConfig.redis, logger)
    : createMemoryState();
  let sessions: Sessions;
  let secret: Buffer;
  try {
    // One set of sessions for every forwarder a reload swaps in, signed with the secret every
    // instance shares: a session works on any instance and its streams outlive reloads.
    secret = await shared.sessionSecret();
    sessions = new Sessions({
      secret,
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
    // Server-to-client requests and task events have lines of their own, not call-log rows.
    if (entry.event !== undefined) {
      const { time: _time, ...fields } = entry;
      auditLogger.info(entry.event === 'task' ? 'task' : 'server-to-client request', fields);
      return;
    }
    if (entry.outcome !== 'initiated') callLog.push(entry);
    // The line's own `time` is the logger's (the same millisecond): one `time` key, not two.
    const { time: _time, ...fields } = entry;
    auditLogger.info('tool call', { ...fields, event: 'tool_call' });
  };

  const pins = pinsKeeper(logger, source.file);
  const buildRuntime = runtimeBuilder({
    logger,
    audit,
    guard,
    sessions,
    maxBodyBytes: maxBody,
    ...(options.backoff ? { backoff: options.backoff } : {}),
    ...(options.breaker ? { breaker: options.breaker } : {}),
    ...(options.clientRequestTimeoutMs !== undefined
      ? { clientRequestTimeoutMs: options.clientRequestTimeoutMs }
      : {}),
    openConnections: () => listener.openConnections(),
    pinsFor: (config) => pins.pinsFor(config),
    secret,
    configFile: source.file,
  });

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
        if (usesCodeMode(config)) void warmUpCodeMode(logger, 'codeMode is on');
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

  // Headers within 10 s however they trickle, bodies within the request timeout, idle keep-alive
  // connections closed, connections capped in all and per address, and refusals sent before a body
  // was read kept readable (`createHttpListener`).
  const listener = createHttpListener(
    {
      headersTimeoutMs: options.headersTimeoutMs,
      requestTimeoutMs: options.requestTimeoutMs,
      keepAliveTimeoutMs: options.keepAliveTimeoutMs,
      maxConnections: options.maxConnections,
      maxConnectionsPerAddress: options.maxConnectionsPerAddress,
      onRefused: refusalLog(logger),
    },
    (req, res) => {
      if (runtime === undefined) {
        void started.then(() => handle(req, res));
        return;
      }
      handle(req, res);
    },
  );
  const server = listener.server;

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

  const route = createRouter({
    guard,
    shared,
    callLog,
    logger,
    maxBody,
    startedAt,
    secret,
    phase: () => (shuttingDown ? 'shutting-down' : draining ? 'draining' : 'serving'),
  });

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
    // A browser client of an origin in --allowed-hosts: its preflight is answered here (before
    // auth: a preflight carries no token), its answers readable.
    if (guard.cors(req, res)) return;
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
  server.on('connection', () => acceptedTotal++);
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
    await pins.close();
    await shared.close();
    throw error;
  }
  markStarted();
  const address = server.address() as AddressInfo;
  const family = address.family === 'IPv6' ? 'IPv6' : 'IPv4';
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}`;

  const watcher =
    source.file && (options.watchConfig ?? true)
      ? watchConfigFile(source.file, () => {
          logger.info('config file changed', { file: source.file });
          reload().catch(() => {});
        })
      : undefined;

  logger.info('listening', {
    url,
    mcp: `${url}/mcp`,
    dashboard: `${url}/`,
    config: source.file ?? 'embedded default',
    servers: runtime.registry.servers().map((s) => ({ name: s.name, status: s.status })),
    tools: runtime.forwarder.pipeline.tools().size,
    redis: shared.kind === 'redis',
  });
  // Code mode serves its first run at full speed: loaded in the background, after `listening`.
  if (usesCodeMode(runtime.config)) void warmUpCodeMode(logger, 'codeMode is on');

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
      await pins.close();
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
 * Logs refused connections without letting a flood of them flood the log: the first of each kind
 * in a minute is logged with its address, the rest are counted into the next line.
 */
function refusalLog(
  logger: Logger,
): (reason: 'global' | 'address' | 'headers', address: string) => void {
  const REASONS = {
    global: 'too many connections (--max-connections)',
    address: 'too many connections from one address (--max-connections-per-address)',
    headers: 'headers not complete in time',
  };
  const last = new Map<string, { at: number; suppressed: number }>();
  return (reason, address) => {
    const now = Date.now();
    const seen = last.get(reason);
    if (seen && now - seen.at < 60_000) {
      seen.suppressed++;
      return;
    }
    logger.warn('connection refused', {
      reason: REASONS[reason],
      address,
      ...(seen?.suppressed ? { alsoRefusedSinceLastLine: seen.suppressed } : {}),
    });
    last.set(reason, { at: now, suppressed: 0 });
  };
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

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
