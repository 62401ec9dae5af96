import { Pool } from 'undici';
import { ToolwireError } from '@toolwire/schema';
import { readSseEvents } from './sse.js';
import { isRecord, JsonRpcFault, type JsonRpcId } from './json-rpc.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  LEGACY_PROTOCOLS,
  MODERN_PROTOCOL,
  NAME_PARAM,
  PROTOCOL_META_KEY,
} from './mcp-protocol.js';

const LEGACY_PROTOCOL = LEGACY_PROTOCOLS[0];
const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';

const CLIENT_INFO = { name: 'toolwire-forwarder', version: '0.1.0' };

export type UpstreamFailureKind = 'connection' | 'timeout' | 'http' | 'protocol' | 'cancelled';

/**
 * The upstream could not be reached or answered outside the protocol (not a JSON-RPC error).
 * `code` is `upstream_<kind>`.
 */
export class UpstreamError extends ToolwireError {
  readonly kind: UpstreamFailureKind;
  readonly upstream: string;
  constructor(upstream: string, kind: UpstreamFailureKind, message: string, cause?: unknown) {
    super(`upstream_${kind}`, { message, cause });
    this.name = 'UpstreamError';
    this.kind = kind;
    this.upstream = upstream;
  }
}

export interface UpstreamMessage {
  jsonrpc: '2.0';
  id?: JsonRpcId | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** What a server-to-client request is answered with: a result, or a JSON-RPC error. */
export type ServerRequestAnswer =
  | { result: unknown }
  | { error: { code: number; message: string; data?: unknown } }
  /** Someone else (another instance of a fleet) answered it already: nothing to send. */
  | { answered: true };

export interface UpstreamRequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Extra HTTP headers (e.g. `traceparent`). */
  headers?: Record<string, string>;
  /** Notifications (progress, log messages) the upstream sends while answering. */
  onNotification?: (message: UpstreamMessage) => void;
  /**
   * A 2025-era upstream session of our own (`openSession`) to send the request in, instead of the
   * channel's shared one.
   */
  session?: string;
  /** The client capabilities of a 2026-07-28 request (its `_meta` envelope); default none. */
  capabilities?: Record<string, unknown>;
  /**
   * Answers the server-to-client requests (sampling, elicitation, roots) the upstream sends while
   * answering. Without it they get a JSON-RPC error: the shared session declares no capabilities.
   */
  onRequest?: (message: UpstreamMessage) => Promise<ServerRequestAnswer>;
}

export interface HttpUpstreamOptions {
  name: string;
  url: string;
  headers?: Record<string, string>;
  /** `auto` (default) tries 2026-07-28 `server/discover` and falls back to `initialize`. */
  protocol?: 'auto' | 'modern' | 'legacy';
  /** Keep-alive connections in the pool. Default 64. */
  connections?: number;
}

/**
 * A lean MCP client for one streamable HTTP upstream: a keep-alive connection pool, JSON-RPC with
 * its own request ids, both protocol revisions (2026-07-28 stateless with the `_meta` envelope and
 * `Mcp-Method`/`Mcp-Name` headers; 2025-11-25 with `initialize` and `Mcp-Session-Id`), and JSON
 * or SSE responses. It is the forwarder's hot path, so it avoids the SDK's per-call machinery.
 */
export class HttpUpstream {
  readonly name: string;
  protocolVersion: string | undefined;
  private readonly origin: string;
  private readonly path: string;
  private readonly baseHeaders: Record<string, string>;
  private readonly configuredHeaders: Record<string, string>;
  private readonly pool: Pool;
  /** Long-lived GET streams of our sessions, apart from the calls' pool (they would starve it). */
  private readonly streams: Pool;
  private readonly mode: 'auto' | 'modern' | 'legacy';
  private sessionId: string | undefined;
  private nextId = 1;
  private connecting: Promise<void> | undefined;
  serverCapabilities: Record<string, unknown> = {};

  constructor(options: HttpUpstreamOptions) {
    const url = new URL(options.url);
    this.name = options.name;
    this.origin = url.origin;
    this.path = url.pathname + url.search;
    this.mode = options.protocol ?? 'auto';
    // Header names without case (a configured `Authorization` and a caller's `authorization` are one).
    this.configuredHeaders = Object.fromEntries(
      Object.entries(options.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
    );
    this.baseHeaders = {
      ...this.configuredHeaders,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    this.pool = new Pool(this.origin, {
      connections: options.connections ?? 64,
      pipelining: 1,
      keepAliveTimeout: 30_000,
    });
    this.streams = new Pool(this.origin, { connections: null, pipelining: 1 });
  }

  /** The session of the channel's own calls (2025-era upstreams), once initialized. */
  get sharedSession(): string | undefined {
    return this.sessionId;
  }

  get modern(): boolean {
    return this.protocolVersion === MODERN_PROTOCOL;
  }

  /** Negotiates the protocol revision once; concurrent callers share the attempt. */
  connect(): Promise<void> {
    if (this.protocolVersion) return Promise.resolve();
    this.connecting ??= this.negotiate().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async negotiate(legacyOnly = false): Promise<void> {
    if (this.mode !== 'legacy' && !legacyOnly) {
      try {
        const discovered = await this.exchange(
          'server/discover',
          {},
          { timeoutMs: 10_000 },
          MODERN_PROTOCOL,
        );
        if (
          isRecord(discovered) &&
          Array.isArray(discovered.supportedVersions) &&
          discovered.supportedVersions.includes(MODERN_PROTOCOL)
        ) {
          this.serverCapabilities = isRecord(discovered.capabilities)
            ? discovered.capabilities
            : {};
          this.protocolVersion = MODERN_PROTOCOL;
          return;
        }
      } catch (error) {
        if (this.mode === 'modern') throw error;
        if (error instanceof UpstreamError && error.kind === 'connection') throw error;
      }
    }
    this.sessionId = undefined;
    const result = await this.exchange(
      'initialize',
      { protocolVersion: LEGACY_PROTOCOL, capabilities: {}, clientInfo: CLIENT_INFO },
      { timeoutMs: 10_000 },
      undefined,
    );
    if (!isRecord(result) || typeof result.protocolVersion !== 'string') {
      throw new UpstreamError(
        this.name,
        'protocol',
        `Upstream "${this.name}" answered initialize without a protocolVersion`,
      );
    }
    this.serverCapabilities = isRecord(result.capabilities) ? result.capabilities : {};
    this.protocolVersion = result.protocolVersion;
    await this.notify('notifications/initialized', {});
  }

  /** Sends one request and resolves with its `result`; a JSON-RPC error rejects with `JsonRpcFault`. */
  async request(
    method: string,
    params: Record<string, unknown>,
    options: UpstreamRequestOptions = {},
  ): Promise<unknown> {
    if (!this.protocolVersion) await this.connect();
    try {
      return await this.exchange(method, params, options, this.protocolVersion);
    } catch (error) {
      // A legacy upstream that restarted forgets our session: initialize again and retry once.
      if (
        error instanceof UpstreamError &&
        error.kind === 'http' &&
        /\b404\b/.test(error.message) &&
        this.sessionId &&
        options.session === undefined
      ) {
        this.protocolVersion = undefined;
        this.sessionId = undefined;
        // Known to be a 2025-era server: initialize again without probing server/discover.
        this.connecting ??= this.negotiate(true).finally(() => {
          this.connecting = undefined;
        });
        await this.connecting;
        return this.exchange(method, params, options, this.protocolVersion);
      }
      throw error;
    }
  }

  async notify(
    method: string,
    params: Record<string, unknown>,
    session: string | undefined = this.sessionId,
  ): Promise<void> {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      method,
      params: this.envelope(params, this.protocolVersion),
    });
    const response = await this.pool.request({
      path: this.path,
      method: 'POST',
      headers: this.headersFor(method, params, this.protocolVersion, undefined, session),
      body,
    });
    await response.body.dump();
  }

  /**
   * Opens a 2025-era session of our own with the given client capabilities (an upstream sees the
   * capabilities of the client it works for); `undefined` for a 2026-07-28 upstream, which takes
   * capabilities per request. The session lives until `endSession` or the upstream forgets it.
   */
  async openSession(
    capabilities: Record<string, unknown>,
  ): Promise<{ session: string; capabilities: Record<string, unknown> } | undefined> {
    if (!this.protocolVersion) await this.connect();
    if (this.modern) return undefined;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: this.nextId++,
      method: 'initialize',
      params: { protocolVersion: LEGACY_PROTOCOL, capabilities, clientInfo: CLIENT_INFO },
    });
    let response;
    try {
      response = await this.pool.request({
        path: this.path,
        method: 'POST',
        headers: { ...this.baseHeaders },
        body,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
    } catch (error) {
      throw this.failure(error, false, undefined, undefined);
    }
    const session = response.headers['mcp-session-id'];
    const contentType = String(response.headers['content-type'] ?? '');
    let message: UpstreamMessage | undefined;
    if (contentType.startsWith('text/event-stream')) {
      for await (const { data } of readSseEvents(response.body)) {
        if (data) message = JSON.parse(data) as UpstreamMessage;
        if (message && 'result' in message) break;
      }
    } else message = JSON.parse(await response.body.text()) as UpstreamMessage;
    if (typeof session !== 'string' || !message) {
      throw new UpstreamError(
        this.name,
        'protocol',
        `Upstream "${this.name}" answered initialize without a session (HTTP ${response.statusCode})`,
      );
    }
    const result = this.settle(message);
    await this.notify('notifications/initialized', {}, session);
    return {
      session,
      capabilities: isRecord(result) && isRecord(result.capabilities) ? result.capabilities : {},
    };
  }

  /**
   * The standalone GET stream of one of our sessions: every message the upstream sends outside a
   * request (server-to-client requests, log messages, list changes, resource updates, task
   * status) goes to `onMessage`. Resolves when the stream ends; rejects when it cannot open.
   */
  async listen(
    session: string,
    onMessage: (message: UpstreamMessage) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    const headers: Record<string, string> = {
      ...this.configuredHeaders,
      accept: 'text/event-stream',
      'mcp-session-id': session,
    };
    if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion;
    const response = await this.streams.request({
      path: this.path,
      method: 'GET',
      headers,
      signal,
      bodyTimeout: 0,
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new UpstreamError(
        this.name,
        'http',
        `Upstream "${this.name}" refused the session's GET stream (HTTP ${response.statusCode})`,
      );
    }
    try {
      for await (const { data } of readSseEvents(response.body)) {
        if (!data) continue;
        let message: UpstreamMessage;
        try {
          message = JSON.parse(data) as UpstreamMessage;
        } catch {
          continue;
        }
        onMessage(message);
      }
    } catch (error) {
      if (!signal?.aborted) throw error;
    }
  }

  /** Sends the answer to a server-to-client request of one of our sessions (or the shared one). */
  async respond(
    session: string | undefined,
    id: JsonRpcId,
    answer: ServerRequestAnswer,
  ): Promise<void> {
    if ('answered' in answer) return;
    const response = await this.pool.request({
      path: this.path,
      method: 'POST',
      headers: this.headersFor('', {}, this.protocolVersion, undefined, session),
      body: JSON.stringify({ jsonrpc: '2.0', id, ...answer }),
    });
    await response.body.dump();
  }

  /** Sends a notification (`notifications/roots/list_changed`) in one of our sessions. */
  notifySession(session: string, method: string, params: Record<string, unknown> = {}) {
    return this.notify(method, params, session);
  }

  /** Ends one of our sessions (DELETE); failures are ignored (the upstream may be gone). */
  async endSession(session: string): Promise<void> {
    await this.pool
      .request({
        path: this.path,
        method: 'DELETE',
        headers: this.headersFor('', {}, this.protocolVersion, undefined, session),
      })
      .then((r) => r.body.dump())
      .catch(() => undefined);
  }

  private envelope(
    params: Record<string, unknown>,
    version: string | undefined,
    capabilities?: Record<string, unknown>,
  ): Record<string, unknown> {
    if (version !== MODERN_PROTOCOL) return params;
    const meta = isRecord(params._meta) ? params._meta : {};
    return {
      ...params,
      _meta: {
        ...meta,
        [PROTOCOL_META_KEY]: MODERN_PROTOCOL,
        [CLIENT_CAPABILITIES_META_KEY]: capabilities ?? meta[CLIENT_CAPABILITIES_META_KEY] ?? {},
        [CLIENT_INFO_META_KEY]: meta[CLIENT_INFO_META_KEY] ?? CLIENT_INFO,
      },
    };
  }

  private headersFor(
    method: string,
    params: Record<string, unknown>,
    version: string | undefined,
    extra?: Record<string, string>,
    session: string | undefined = this.sessionId,
  ): Record<string, string> {
    const headers: Record<string, string> = { ...this.baseHeaders, ...extra };
    if (version) headers['mcp-protocol-version'] = version;
    if (session) headers['mcp-session-id'] = session;
    if (version === MODERN_PROTOCOL) {
      if (method) headers['mcp-method'] = method;
      const nameKey = NAME_PARAM[method];
      const value = nameKey ? params[nameKey] : undefined;
      // Names are rewritten to the upstream's own (un-namespaced) name on this hop.
      if (typeof value === 'string') headers['mcp-name'] = value;
    }
    return headers;
  }

  private async exchange(
    method: string,
    params: Record<string, unknown>,
    options: UpstreamRequestOptions,
    version: string | undefined,
  ): Promise<unknown> {
    const id = this.nextId++;
    const session = options.session ?? this.sessionId;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: this.envelope(params, version, options.capabilities),
    });
    const controller = new AbortController();
    let timedOut = false;
    const arm = (): NodeJS.Timeout | undefined =>
      options.timeoutMs !== undefined
        ? setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, options.timeoutMs)
        : undefined;
    let timer = arm();
    // The time a client takes to answer a server-to-client request (a person filling a form) is
    // not the upstream's: the timeout stops while one is open and starts again after.
    let asking = 0;
    const pause = {
      asked: (): void => {
        if (asking++ === 0 && timer) clearTimeout(timer);
      },
      answered: (): void => {
        if (--asking === 0 && !controller.signal.aborted) {
          if (timer) clearTimeout(timer);
          timer = arm();
        }
      },
    };
    const onAbort = (): void => controller.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const cancelUpstream = (reason: string): void => {
      // Tell the upstream to stop, under the id it knows (ours, not the downstream client's).
      this.notify('notifications/cancelled', { requestId: id, reason }, session).catch(
        () => undefined,
      );
    };
    try {
      let response;
      try {
        response = await this.pool.request({
          path: this.path,
          method: 'POST',
          headers: this.headersFor(method, params, version, options.headers, session),
          body,
          signal: controller.signal,
        });
      } catch (error) {
        throw this.failure(error, timedOut, options.signal, options.timeoutMs);
      }
      if (method === 'initialize') {
        const session = response.headers['mcp-session-id'];
        if (typeof session === 'string') this.sessionId = session;
      }
      const contentType = String(response.headers['content-type'] ?? '');
      try {
        if (contentType.startsWith('text/event-stream')) {
          return await this.readStream(response.body, id, options, session, pause);
        }
        const text = await response.body.text();
        if (response.statusCode >= 400 && !text.startsWith('{')) {
          throw new UpstreamError(
            this.name,
            'http',
            `Upstream "${this.name}" answered HTTP ${response.statusCode}: ${text.slice(0, 200)}`,
          );
        }
        let message: UpstreamMessage;
        try {
          message = JSON.parse(text) as UpstreamMessage;
        } catch (error) {
          throw new UpstreamError(
            this.name,
            response.statusCode >= 400 ? 'http' : 'protocol',
            `Upstream "${this.name}" answered HTTP ${response.statusCode} with a body that is not JSON`,
            error,
          );
        }
        if (response.statusCode === 404 && session && !message.result) {
          throw new UpstreamError(
            this.name,
            'http',
            `Upstream "${this.name}" answered HTTP 404 (session expired)`,
          );
        }
        return this.settle(message);
      } catch (error) {
        if (error instanceof UpstreamError || error instanceof JsonRpcFault) throw error;
        throw this.failure(error, timedOut, options.signal, options.timeoutMs);
      }
    } catch (error) {
      if (
        error instanceof UpstreamError &&
        (error.kind === 'timeout' || error.kind === 'cancelled')
      ) {
        cancelUpstream(error.kind === 'timeout' ? 'timeout' : 'cancelled by the client');
      }
      throw error;
    } finally {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  private failure(
    error: unknown,
    timedOut: boolean,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ): UpstreamError {
    if (timedOut)
      return new UpstreamError(
        this.name,
        'timeout',
        `Upstream "${this.name}" did not answer within ${timeoutMs} ms`,
        error,
      );
    if (signal?.aborted)
      return new UpstreamError(this.name, 'cancelled', 'The call was cancelled', error);
    const message = error instanceof Error ? error.message : String(error);
    return new UpstreamError(
      this.name,
      'connection',
      `Upstream "${this.name}" is unreachable: ${message}`,
      error,
    );
  }

  private settle(message: UpstreamMessage): unknown {
    if (message.error)
      throw new JsonRpcFault(message.error.code, message.error.message, message.error.data);
    if (!('result' in message))
      throw new UpstreamError(
        this.name,
        'protocol',
        `Upstream "${this.name}" sent a response with neither result nor error`,
      );
    return message.result;
  }

  private async readStream(
    body: AsyncIterable<Buffer>,
    id: number,
    options: UpstreamRequestOptions,
    session: string | undefined,
    pause: { asked(): void; answered(): void },
  ): Promise<unknown> {
    for await (const { data } of readSseEvents(body)) {
      if (!data) continue;
      const message = JSON.parse(data) as UpstreamMessage;
      if (message.method && message.id !== undefined && message.id !== null) {
        const requestId = message.id;
        // A server-to-client request (sampling, elicitation, roots): asked of the client this
        // request works for; without one (the shared session declares no capabilities) the
        // upstream gets the protocol's error rather than waiting.
        const answer = options.onRequest
          ? options.onRequest(message).catch((error: unknown): ServerRequestAnswer => ({
              error: {
                code: -32603,
                message: error instanceof Error ? error.message : String(error),
              },
            }))
          : Promise.resolve<ServerRequestAnswer>({
              error: {
                code: -32601,
                message: `${message.method}: the client did not declare the capability this needs`,
              },
            });
        pause.asked();
        void answer
          .then((a) => ('answered' in a ? undefined : this.respond(session, requestId, a)))
          .catch(() => undefined)
          .finally(() => pause.answered());
        continue;
      }
      if (message.method) {
        options.onNotification?.(message);
        continue;
      }
      if (message.id === id) return this.settle(message);
    }
    throw new UpstreamError(
      this.name,
      'connection',
      `Upstream "${this.name}" closed the stream before answering`,
    );
  }

  /**
   * Sends a raw HTTP exchange to the upstream endpoint (the passthrough route): the caller's MCP
   * headers plus the upstream's configured ones, the body unchanged, the response unread.
   */
  relay(options: {
    method: string;
    headers: Record<string, string>;
    body?: Buffer | string;
    signal?: AbortSignal;
    /** The caller's credential for this upstream (`mcpServers.<name>.auth`), over the configured one. */
    authorization?: string;
  }) {
    return this.pool.request({
      path: this.path,
      method: options.method as 'GET' | 'POST' | 'DELETE',
      headers: {
        ...options.headers,
        ...this.configuredHeaders,
        ...(options.authorization ? { authorization: options.authorization } : {}),
      },
      body: options.body,
      signal: options.signal,
    });
  }

  async close(): Promise<void> {
    if (this.sessionId && this.protocolVersion !== MODERN_PROTOCOL) {
      await this.pool
        .request({
          path: this.path,
          method: 'DELETE',
          headers: this.headersFor('', {}, this.protocolVersion),
        })
        .then((r) => r.body.dump())
        .catch(() => undefined);
    }
    await this.pool.close();
    await this.streams.destroy();
  }
}
