import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Tracer } from '@opentelemetry/api';
import { errorMessage, type AnyTool } from '@toolwire/schema';
import type { PathArgumentRule } from './argument-rules.js';
import type { AuditSink } from './audit-log.js';
import { runBatch, type BatchCall, type BatchResult } from './batch.js';
import { CallPipeline, NATIVE, type CallContext } from './call-pipeline.js';
import type { CircuitBreakerOptions } from './circuit-breaker.js';
import {
  authTokensOf,
  validateConfig,
  type AuthToken,
  type ToolwireConfig,
} from '@toolwire/config';
import {
  HttpError,
  LOOPBACK_HOSTS,
  authenticate as authenticateBearer,
  checkHost as checkRequestHost,
  checkJsonContentType,
  checkMcpAccept,
  decodePathSegment,
  type AllowedOrigins,
  readBody,
  respondWithProgress,
  sendHttpError,
  sendJson,
} from './http-helpers.js';
import type { HttpUpstream, UpstreamMessage } from './http-upstream.js';
import {
  HEADER_MISMATCH,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  invalidIdReason,
  isRecord,
  JsonRpcFault,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  POLICY_REFUSED,
  RESOURCE_NOT_FOUND,
  type JsonRpcError,
  type JsonRpcId,
  type JsonRpcRequest,
} from './json-rpc.js';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import {
  CLIENT_CAPABILITIES_META_KEY,
  LEGACY_PROTOCOLS,
  LIST_METHODS,
  MODERN_PROTOCOL,
  NAME_PARAM,
  PROTOCOL_META_KEY,
  REMOVED_IN_MODERN,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOLS,
  UNSUPPORTED_PROTOCOL_VERSION,
} from './mcp-protocol.js';
import { GatewayMode, listedTool } from './gateway-mode.js';
import { filterMetrics, ForwarderMetrics } from './metrics.js';
import type { PolicyRefusal } from './policy.js';
import { relayPassthrough } from './passthrough-relay.js';
import type { RateLimiter } from './rate-limiter.js';
import type { ResultCacheStore } from './result-cache.js';
import type { BreakerStateStore } from './breaker-store.js';
import { Sessions, type ListKind, type Session } from './sessions.js';
import {
  upstreamHealth,
  type CallToolResult,
  type SourceServer,
  type ToolSource,
} from './tool-source.js';

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

export interface DispatchContext {
  token?: AuthToken;
  server?: string;
  modern?: boolean;
  signal?: AbortSignal;
  /** Where notifications for this request go (progress, log messages, list_changed). */
  notify?: (notification: { method: string; params?: Record<string, unknown> }) => void;
  session?: Session;
  /** The client's network address (for the audit line). */
  address?: string;
}

const MAX_BODY = 4 * 1024 * 1024;

class HttpFailure extends HttpError {
  constructor(status: number, rpc: JsonRpcError, headers: Record<string, string> = {}) {
    super(status, rpc.message, rpc.code, headers, rpc.data);
  }
}

/** Creates the forwarder. It owns no upstream connections beyond its own lean HTTP pool. */
export function createForwarder(options: CreateForwarderOptions): Forwarder {
  const config = validateConfig(options.config ?? {});
  const metrics = new ForwarderMetrics();
  const pipeline = new CallPipeline({ ...options, config, metrics });
  const gateway = new GatewayMode(pipeline, options.source);
  const serverInfo = options.serverInfo ?? { name: 'toolwire-forwarder', version: '0.1.0' };
  const tokens = new Map(authTokensOf(config).map((token) => [token.token, token]));
  const ownsSessions = options.sessions === undefined;
  const sessions = options.sessions ?? new Sessions({ idleMs: options.sessionIdleMs });
  const maxBody = options.maxBodyBytes ?? MAX_BODY;
  const allowedHosts = options.allowedHosts ?? LOOPBACK_HOSTS;
  const allowedOrigins = options.allowedOrigins ?? (allowedHosts === '*' ? '*' : []);
  const cacheScope = config.auth ? 'private' : 'public';
  const resourceOwners = new Map<string, string>();
  let closed = false;

  // list_changed goes to every open legacy GET stream and every modern subscription.
  const broadcastListChanged = (kind: ListKind, server: string): void =>
    sessions.broadcast(kind, server);
  pipeline.onChange((server) => broadcastListChanged('tools', server));
  // Tool changes already arrive through the pipeline (which also invalidates the cache).
  const unsubscribeLists = options.source.onListChanged?.(({ server, kind }) => {
    if (kind !== 'tools') broadcastListChanged(kind, server);
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

  function exposedPromptName(server: string, name: string, route: string | undefined): string {
    return route !== undefined ? name : `${server}${pipeline.separator}${name}`;
  }

  /** Upstreams reachable for resources and prompts on this route. */
  function upstreamsFor(route: string | undefined): string[] {
    const names = options.source
      .servers()
      .filter((s) => s.status !== 'disabled')
      .map((s) => s.name);
    return route !== undefined ? names.filter((n) => n === route) : names;
  }

  async function upstreamRequest(
    server: string,
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const http: HttpUpstream | undefined = pipeline.httpUpstream(server);
    if (http)
      return http.request(method, params, {
        signal,
        timeoutMs: config.policy?.timeoutMs ?? 30_000,
      });
    const client = options.source.getClient?.(server) as Record<string, unknown> | undefined;
    const call = (fn: string) => {
      const method = client?.[fn];
      if (typeof method !== 'function') {
        throw new JsonRpcFault(
          METHOD_NOT_FOUND,
          `Upstream "${server}" offers no ${fn} through this registry`,
        );
      }
      return (method as (p: unknown, o?: unknown) => Promise<unknown>).call(client, params, {
        signal,
      });
    };
    switch (method) {
      case 'resources/list':
        return call('listResources');
      case 'resources/templates/list':
        return call('listResourceTemplates');
      case 'resources/read':
        return call('readResource');
      case 'prompts/list':
        return call('listPrompts');
      case 'prompts/get':
        return call('getPrompt');
      case 'completion/complete':
        return call('complete');
      default:
        throw new JsonRpcFault(METHOD_NOT_FOUND, `Method not found: ${method}`);
    }
  }

  /** Fans a list request out to every upstream; a failing upstream is skipped, never fatal. */
  async function gather(
    route: string | undefined,
    method: string,
    key: string,
    signal?: AbortSignal,
    servers: string[] = upstreamsFor(route),
  ): Promise<Array<[string, Record<string, unknown>]>> {
    const settled = await Promise.allSettled(
      servers.map(async (server) => {
        const items: Record<string, unknown>[] = [];
        let cursor: unknown;
        for (let page = 0; page < 64; page++) {
          const result = await upstreamRequest(server, method, cursor ? { cursor } : {}, signal);
          if (!isRecord(result) || !Array.isArray(result[key])) break;
          items.push(...(result[key] as Record<string, unknown>[]));
          cursor = result.nextCursor;
          if (typeof cursor !== 'string') break;
        }
        return items.map((item) => [server, item] as [string, Record<string, unknown>]);
      }),
    );
    if (route !== undefined && servers.length > 0 && settled[0]?.status === 'rejected')
      throw settled[0].reason;
    return settled.flatMap((s) => (s.status === 'fulfilled' ? s.value : []));
  }

  function splitPromptName(
    name: string,
    route: string | undefined,
  ): { server: string; name: string } {
    if (route !== undefined) return { server: route, name };
    const at = name.indexOf(pipeline.separator);
    if (at <= 0) throw new JsonRpcFault(INVALID_PARAMS, `Unknown prompt: ${name}`);
    return { server: name.slice(0, at), name: name.slice(at + pipeline.separator.length) };
  }

  function knownOwner(uri: string): string | undefined {
    const owner = resourceOwners.get(uri);
    if (owner) return owner;
    for (const [pattern, server] of resourceOwners) {
      const brace = pattern.indexOf('{');
      if (brace > 0 && uri.startsWith(pattern.slice(0, brace))) return server;
    }
    return undefined;
  }

  function remember(items: Array<[string, Record<string, unknown>]>): void {
    for (const [server, item] of items) {
      const uri = item.uri ?? item.uriTemplate;
      if (typeof uri === 'string') resourceOwners.set(uri, server);
    }
  }

  /** The upstream that listed a URI (or a template matching it); lists them all once if unknown. */
  async function resourceOwner(
    uri: string,
    route: string | undefined,
    signal?: AbortSignal,
  ): Promise<string> {
    if (route !== undefined) return route;
    const servers = upstreamsFor(route);
    if (servers.length === 1) return servers[0]!;
    let owner = knownOwner(uri);
    if (!owner) {
      remember(await gather(route, 'resources/list', 'resources', signal));
      remember(await gather(route, 'resources/templates/list', 'resourceTemplates', signal));
      owner = knownOwner(uri);
    }
    if (!owner) throw new JsonRpcFault(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
    return owner;
  }

  async function dispatchRequest(
    request: JsonRpcRequest,
    context: DispatchContext,
  ): Promise<unknown> {
    const params = isRecord(request.params) ? request.params : {};
    const route = context.server;
    switch (request.method) {
      case 'initialize': {
        const requested = typeof params.protocolVersion === 'string' ? params.protocolVersion : '';
        const protocolVersion = (LEGACY_PROTOCOLS as readonly string[]).includes(requested)
          ? requested
          : LEGACY_PROTOCOLS[0];
        return {
          protocolVersion,
          capabilities: capabilities(),
          serverInfo,
          ...(options.instructions ? { instructions: options.instructions } : {}),
        };
      }
      case 'server/discover':
        return {
          supportedVersions: SUPPORTED_PROTOCOLS,
          capabilities: capabilities(),
          // Where 2026-07-28 clients (the official SDK, @ai-sdk/mcp) read who we are; the
          // top-level copy is for clients written against earlier drafts.
          _meta: { [SERVER_INFO_META_KEY]: serverInfo },
          serverInfo,
          ...(options.instructions ? { instructions: options.instructions } : {}),
        };
      case 'ping':
        return {};
      case 'logging/setLevel':
        return {};
      case 'tools/list': {
        const { tools, hiddenByPolicy, unavailable } = pipeline.visibleTools(context.token, route);
        if (route === undefined) updateGauges(hiddenByPolicy, unavailable);
        if (route === undefined) return { tools: gateway.list(tools) };
        return { tools: tools.map((entry) => listedTool(entry, entry.tool.originalName)) };
      }
      case 'tools/call': {
        if (typeof params.name !== 'string')
          throw new JsonRpcFault(INVALID_PARAMS, 'params.name: expected the tool name');
        let name = params.name;
        if (route !== undefined) {
          const entry = [...pipeline.tools().values()].find(
            (e) => e.server === route && e.tool.originalName === name,
          );
          if (!entry)
            throw new JsonRpcFault(INVALID_PARAMS, `Unknown tool: ${name}`, { tool: name });
          name = entry.tool.name;
        }
        const meta = isRecord(params._meta) ? params._meta : undefined;
        const token = meta?.progressToken;
        const { name: _name, arguments: _args, _meta: _m, ...extraParams } = params;
        const gatewayed = route === undefined ? gateway.serverOf(name) : undefined;
        const call = (tool: string, args: unknown, callContext: CallContext) =>
          gatewayed !== undefined
            ? gateway.call(gatewayed, args, callContext)
            : pipeline.call(tool, args, callContext);
        return call(name, params.arguments, {
          token: context.token,
          signal: context.signal,
          meta,
          modern: context.modern,
          ...(context.address !== undefined ? { address: context.address } : {}),
          extraParams,
          onProgress:
            token !== undefined && context.notify
              ? (p) =>
                  context.notify!({
                    method: 'notifications/progress',
                    params: { progressToken: token, ...p },
                  })
              : undefined,
          onNotification: context.notify
            ? (message: UpstreamMessage) =>
                context.notify!({ method: message.method!, params: message.params })
            : undefined,
        });
      }
      case 'prompts/list': {
        const prompts = await gather(route, 'prompts/list', 'prompts', context.signal);
        return {
          prompts: prompts
            .map(([server, prompt]) => ({
              ...prompt,
              name: exposedPromptName(server, String(prompt.name), route),
            }))
            .filter(
              (prompt) =>
                !pipeline.policy.checkPrompt(promptPolicyName(prompt.name, route), context.token),
            ),
        };
      }
      case 'prompts/get': {
        if (typeof params.name !== 'string')
          throw new JsonRpcFault(INVALID_PARAMS, 'params.name: expected the prompt name');
        refuse(pipeline.policy.checkPrompt(promptPolicyName(params.name, route), context.token));
        const { server, name } = splitPromptName(params.name, route);
        return upstreamRequest(server, 'prompts/get', { ...params, name }, context.signal);
      }
      case 'resources/list':
      case 'resources/templates/list': {
        const key = request.method === 'resources/list' ? 'resources' : 'resourceTemplates';
        const granted = upstreamsFor(route).filter(
          (server) => !pipeline.policy.checkResources(server, context.token),
        );
        const items = await gather(route, request.method, key, context.signal, granted);
        remember(items);
        return { [key]: items.map(([, item]) => item) };
      }
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        if (typeof params.uri !== 'string')
          throw new JsonRpcFault(INVALID_PARAMS, 'params.uri: expected a resource URI');
        refuse(
          pipeline.policy.checkResources(
            await resourceOwner(params.uri, route, context.signal),
            context.token,
          ),
        );
        throw new JsonRpcFault(
          METHOD_NOT_FOUND,
          `${request.method} is not offered here (no resources.subscribe capability); subscribe through /servers/<name>/mcp of an HTTP upstream`,
        );
      case 'resources/read': {
        if (typeof params.uri !== 'string')
          throw new JsonRpcFault(INVALID_PARAMS, 'params.uri: expected a resource URI');
        const owner = await resourceOwner(params.uri, route, context.signal);
        refuse(pipeline.policy.checkResources(owner, context.token));
        return upstreamRequest(owner, request.method, params, context.signal);
      }
      case 'completion/complete': {
        const ref = isRecord(params.ref) ? params.ref : {};
        if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
          refuse(pipeline.policy.checkPrompt(promptPolicyName(ref.name, route), context.token));
          const { server, name } = splitPromptName(ref.name, route);
          return upstreamRequest(
            server,
            'completion/complete',
            { ...params, ref: { ...ref, name } },
            context.signal,
          );
        }
        if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
          const owner = await resourceOwner(ref.uri, route, context.signal);
          refuse(pipeline.policy.checkResources(owner, context.token));
          return upstreamRequest(owner, 'completion/complete', params, context.signal);
        }
        throw new JsonRpcFault(INVALID_PARAMS, 'params.ref: expected a ref/prompt or ref/resource');
      }
      default:
        throw new JsonRpcFault(METHOD_NOT_FOUND, `Method not found: ${request.method}`);
    }
  }

  /** Throws the JSON-RPC refusal (naming the rule) when the policy refused. */
  function refuse(refusal: PolicyRefusal | null): void {
    if (refusal)
      throw new JsonRpcFault(POLICY_REFUSED, refusal.message, { policy: refusal.policy });
  }

  function promptPolicyName(name: string, route: string | undefined): string {
    return route !== undefined ? `${route}${pipeline.separator}${name}` : name;
  }

  function capabilities(): Record<string, unknown> {
    return {
      tools: { listChanged: true },
      // Resource update notifications are not relayed on the aggregated route (the passthrough
      // route relays them), so subscriptions are not offered here.
      resources: { listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
    };
  }

  function decorate(method: string, result: unknown, modern: boolean): unknown {
    if (!modern || !isRecord(result)) return result;
    // An upstream's `input_required` result keeps its resultType; everything else is complete.
    const out: Record<string, unknown> = { resultType: 'complete', ...result };
    if (LIST_METHODS.has(method) || method === 'server/discover') {
      out.ttlMs = 0;
      out.cacheScope = cacheScope;
    }
    return out;
  }

  /** Answers one parsed JSON-RPC message; `undefined` for notifications. */
  async function dispatch(message: unknown, context: DispatchContext = {}): Promise<unknown> {
    if (Array.isArray(message)) {
      return {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: INVALID_REQUEST,
          message:
            'Invalid Request: JSON-RPC batches are not supported (removed from MCP in 2025-06-18)',
        },
      };
    }
    if (!isRecord(message) || message.jsonrpc !== '2.0' || typeof message.method !== 'string') {
      if (
        isRecord(message) &&
        message.jsonrpc === '2.0' &&
        ('result' in message || 'error' in message)
      )
        return undefined;
      const id =
        isRecord(message) && (typeof message.id === 'string' || typeof message.id === 'number')
          ? message.id
          : null;
      return {
        jsonrpc: '2.0',
        id,
        error: {
          code: INVALID_REQUEST,
          message: 'Invalid Request: expected a JSON-RPC 2.0 request object',
        },
      };
    }
    const badId = invalidIdReason(message);
    if (badId)
      return { jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message: badId } };
    const request = message as unknown as JsonRpcRequest;
    if (request.id === undefined || request.id === null) {
      if (
        request.method === 'notifications/cancelled' &&
        context.session &&
        isRecord(request.params)
      ) {
        const id = request.params.requestId;
        if (typeof id === 'string' || typeof id === 'number')
          sessions.cancel(context.session.id, id);
      }
      return undefined;
    }
    const modern =
      context.modern ??
      (isRecord(request.params) &&
        isRecord(request.params._meta) &&
        request.params._meta[PROTOCOL_META_KEY] === MODERN_PROTOCOL);
    try {
      const result = await dispatchRequest(request, { ...context, modern });
      return { jsonrpc: '2.0', id: request.id, result: decorate(request.method, result, modern) };
    } catch (error) {
      const fault =
        error instanceof JsonRpcFault
          ? error
          : new JsonRpcFault(INTERNAL_ERROR, `Internal error: ${errorMessage(error)}`);
      return { jsonrpc: '2.0', id: request.id, error: fault.toError() };
    }
  }

  function checkHost(req: IncomingMessage): void {
    checkRequestHost(req, allowedHosts, 'allowedHosts', allowedOrigins);
  }

  function authenticate(req: IncomingMessage): AuthToken | undefined {
    return authenticateBearer(req, tokens);
  }

  function headerMismatch(
    req: IncomingMessage,
    request: Record<string, unknown>,
  ): string | undefined {
    const method = req.headers['mcp-method'];
    if (typeof method === 'string' && method !== request.method) {
      return `the body carries method "${String(request.method)}" but the Mcp-Method header names "${method}"`;
    }
    const key = typeof request.method === 'string' ? NAME_PARAM[request.method] : undefined;
    if (!key) return undefined;
    const value = isRecord(request.params) ? request.params[key] : undefined;
    const header = req.headers['mcp-name'];
    if (typeof value === 'string' && typeof header === 'string' && header !== value) {
      return `the body carries params.${key}="${value}" but the Mcp-Name header names "${header}"`;
    }
    if (typeof value === 'string' && header === undefined) {
      return `the body carries params.${key}="${value}" but the required Mcp-Name header is absent`;
    }
    return undefined;
  }

  /**
   * Which era a POST belongs to. A well-formed 2026-07-28 request (headers and `_meta` envelope
   * agree) is recognised by a few comparisons; anything else that claims the modern revision, or
   * names a revision we do not know, goes through the SDK's own inbound validation ladder
   * (`classifyInboundRequest`), so rejections carry the spec's exact codes and HTTP statuses.
   */
  function classify(
    req: IncomingMessage,
    message: Record<string, unknown>,
  ):
    | { kind: 'modern' | 'legacy' }
    | { kind: 'reject'; status: number; error: { code: number; message: string; data?: unknown } } {
    const versionHeader = req.headers['mcp-protocol-version'];
    const meta =
      isRecord(message.params) && isRecord(message.params._meta) ? message.params._meta : undefined;
    const envelopeVersion = meta?.[PROTOCOL_META_KEY];
    const method = req.headers['mcp-method'];
    if (
      versionHeader === MODERN_PROTOCOL &&
      envelopeVersion === MODERN_PROTOCOL &&
      isRecord(meta?.[CLIENT_CAPABILITIES_META_KEY]) &&
      typeof message.method === 'string' &&
      method === message.method &&
      headerMismatch(req, message) === undefined
    ) {
      return { kind: 'modern' };
    }
    const legacyHeader =
      versionHeader === undefined ||
      (LEGACY_PROTOCOLS as readonly string[]).includes(String(versionHeader));
    if (legacyHeader && envelopeVersion === undefined && method === undefined)
      return { kind: 'legacy' };
    const outcome = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: typeof versionHeader === 'string' ? versionHeader : undefined,
      mcpMethodHeader: typeof method === 'string' ? method : undefined,
      mcpNameHeader:
        typeof req.headers['mcp-name'] === 'string' ? req.headers['mcp-name'] : undefined,
      body: message,
    });
    if (outcome.kind === 'reject') {
      return {
        kind: 'reject',
        status: outcome.httpStatus,
        error:
          outcome.data === undefined
            ? { code: outcome.code, message: outcome.message }
            : { code: outcome.code, message: outcome.message, data: outcome.data },
      };
    }
    if (outcome.kind === 'legacy') return { kind: 'legacy' };
    const revision = outcome.classification.revision;
    if (revision !== MODERN_PROTOCOL) {
      return {
        kind: 'reject',
        status: 400,
        error: {
          code: UNSUPPORTED_PROTOCOL_VERSION,
          message: `Unsupported protocol version: ${String(revision)}`,
          data: { supported: SUPPORTED_PROTOCOLS, requested: revision },
        },
      };
    }
    const mismatch =
      method === undefined && typeof message.method === 'string'
        ? `the body names method ${message.method} but the required Mcp-Method header is absent`
        : headerMismatch(req, message);
    if (mismatch) {
      return {
        kind: 'reject',
        status: 400,
        error: {
          code: HEADER_MISMATCH,
          message: `Bad Request: the request headers and body disagree: ${mismatch}`,
          data: { mismatch },
        },
      };
    }
    return { kind: 'modern' };
  }

  async function servePost(
    req: IncomingMessage,
    res: ServerResponse,
    route: string | undefined,
  ): Promise<void> {
    const token = authenticate(req);
    const raw = await readBody(req, maxBody);
    let message: unknown;
    try {
      message = JSON.parse(raw.toString('utf8'));
    } catch {
      sendJson(res, 400, {
        jsonrpc: '2.0',
        id: null,
        error: { code: PARSE_ERROR, message: 'Parse error: the body is not valid JSON' },
      });
      return;
    }
    if (Array.isArray(message)) {
      sendJson(res, 400, await dispatch(message));
      return;
    }
    if (!isRecord(message)) {
      sendJson(res, 400, await dispatch(message));
      return;
    }
    const badId = invalidIdReason(message);
    if (badId) {
      sendJson(res, 400, {
        jsonrpc: '2.0',
        id: null,
        error: { code: INVALID_REQUEST, message: badId },
      });
      return;
    }
    const isRequest =
      message.id !== undefined && message.id !== null && typeof message.method === 'string';
    const era = classify(req, message);
    if (era.kind === 'reject') {
      sendJson(res, era.status, {
        jsonrpc: '2.0',
        id: isRequest ? message.id : null,
        error: era.error,
      });
      return;
    }
    const modern = era.kind === 'modern';

    if (modern) {
      if (isRequest && REMOVED_IN_MODERN.has(message.method as string)) {
        sendJson(res, 404, {
          jsonrpc: '2.0',
          id: message.id,
          error: {
            code: METHOD_NOT_FOUND,
            message: `Method not found: ${String(message.method)} (removed in protocol revision ${MODERN_PROTOCOL})`,
          },
        });
        return;
      }
      if (isRequest && message.method === 'subscriptions/listen') {
        const params = isRecord(message.params) ? message.params : {};
        const filter = isRecord(params.notifications) ? params.notifications : {};
        openSubscription(
          res,
          message.id as JsonRpcId,
          token,
          route,
          filter.toolsListChanged === true,
        );
        return;
      }
      if (!isRequest) {
        res.writeHead(202).end();
        return;
      }
      await answer(req, res, message, { token, server: route, modern: true });
      return;
    }

    // 2025-era: sessions.
    if (message.method === 'initialize') {
      const response = (await dispatch(message, { token, server: route, modern: false })) as {
        result?: { protocolVersion?: string };
      };
      const headers: Record<string, string> = {};
      if (response.result) {
        headers['mcp-session-id'] = sessions.open(
          response.result.protocolVersion ?? LEGACY_PROTOCOLS[0],
          token,
          route,
        );
      }
      sendJson(res, 200, response, headers);
      return;
    }
    const session = await sessionFor(req, token, route);
    if (!isRequest) {
      await dispatch(message, { token, server: route, session, modern: false });
      res.writeHead(202).end();
      return;
    }
    await answer(req, res, message, { token, server: route, session, modern: false });
  }

  function sessionFor(
    req: IncomingMessage,
    token: AuthToken | undefined,
    route: string | undefined,
  ): Promise<Session> {
    return sessions.resolve(req.headers['mcp-session-id'], token, route);
  }

  /** Answers a request as JSON, upgrading to SSE if notifications arrive before the result. */
  async function answer(
    req: IncomingMessage,
    res: ServerResponse,
    message: Record<string, unknown>,
    context: DispatchContext,
  ): Promise<void> {
    const id = message.id as JsonRpcId;
    const controller = new AbortController();
    context.session?.inflight.set(id, controller);
    const headers: Record<string, string> = context.session
      ? { 'mcp-session-id': context.session.id }
      : {};
    // 2026-07-28 over HTTP: an unknown method is also a 404.
    const status = (response: unknown): number =>
      context.modern && (response as { error?: { code?: number } }).error?.code === METHOD_NOT_FOUND
        ? 404
        : 200;
    try {
      await respondWithProgress(req, res, { controller, headers, status }, (notify) =>
        dispatch(message, {
          ...context,
          signal: controller.signal,
          notify,
          ...(req.socket.remoteAddress ? { address: req.socket.remoteAddress } : {}),
        }),
      );
    } finally {
      context.session?.inflight.delete(id);
    }
  }

  function openSubscription(
    res: ServerResponse,
    id: JsonRpcId,
    token: AuthToken | undefined,
    route: string | undefined,
    toolsListChanged: boolean,
  ): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    // Only tool-list changes are honoured on the aggregated route; the ack says so.
    if (toolsListChanged)
      sessions.addSubscription({
        res,
        ...(token ? { token } : {}),
        ...(route !== undefined ? { server: route } : {}),
        subscriptionId: id,
      });
    res.write(
      `event: message\ndata: ${JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: {
          notifications: toolsListChanged ? { toolsListChanged: true } : {},
          _meta: { 'io.modelcontextprotocol/subscriptionId': id },
        },
      })}\n\n`,
    );
  }

  async function serveGet(
    req: IncomingMessage,
    res: ServerResponse,
    route: string | undefined,
  ): Promise<void> {
    const token = authenticate(req);
    const session = await sessionFor(req, token, route);
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'mcp-session-id': session.id,
    });
    res.write(': stream open\n\n');
    sessions.addStream(session, res);
  }

  async function serveDelete(
    req: IncomingMessage,
    res: ServerResponse,
    route: string | undefined,
  ): Promise<void> {
    const token = authenticate(req);
    const session = await sessionFor(req, token, route);
    await sessions.end(session);
    res.writeHead(200).end();
  }

  function handleMcp(
    req: IncomingMessage,
    res: ServerResponse,
    route: { server?: string } = {},
  ): void {
    const server = route.server;
    void (async () => {
      if (closed)
        throw new HttpFailure(503, {
          code: INTERNAL_ERROR,
          message: 'The forwarder is shutting down',
        });
      checkHost(req);
      checkJsonContentType(req);
      checkMcpAccept(req);
      if (server !== undefined) {
        if (
          !options.source.servers().some((s) => s.name === server) &&
          !pipeline.httpUpstream(server)
        ) {
          throw new HttpFailure(404, {
            code: INVALID_REQUEST,
            message: `No upstream named "${server}"`,
          });
        }
        const http = pipeline.httpUpstream(server);
        if (http) {
          await relayPassthrough({
            req,
            res,
            server,
            upstream: http,
            pipeline,
            authenticate,
            maxBody,
          });
          return;
        }
      }
      if (req.method === 'POST') await servePost(req, res, server);
      else if (req.method === 'GET') await serveGet(req, res, server);
      else if (req.method === 'DELETE') await serveDelete(req, res, server);
      else
        throw new HttpFailure(
          405,
          { code: INVALID_REQUEST, message: `Method ${req.method} not allowed` },
          { allow: 'GET, POST, DELETE' },
        );
    })().catch((error: unknown) => sendHttpError(res, error));
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
        const text = await metricsText(authenticate(req));
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

export { NATIVE };
