import type { AuthToken } from '@toolwire/config';
import { errorMessage } from '@toolwire/schema';
import type { CallContext } from './call/call-context.js';
import type { CallPipeline } from './call/call-pipeline.js';
import type { ProtocolBridge } from './bridge/protocol-bridge.js';
import type { Catalog } from './catalog.js';
import { listedTool, type GatewayMode } from './gateway-mode.js';
import type { UpstreamMessage } from './http-upstream.js';
import {
  BATCHES_REFUSED,
  errorResponse,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  invalidIdReason,
  isRecord,
  JsonRpcFault,
  METHOD_NOT_FOUND,
  unknownTool,
  type JsonRpcRequest,
} from './json-rpc.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  LEGACY_PROTOCOLS,
  LIST_METHODS,
  MODERN_PROTOCOL,
  PROTOCOL_META_KEY,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOLS,
} from './mcp-protocol.js';
import type { Session, Sessions } from './sessions.js';

/** The 2026-07-28 tasks extension's identifier. */
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
import { withTraceHeaders, type TraceHeaders } from './tracing.js';

export interface DispatchContext {
  token?: AuthToken;
  server?: string;
  modern?: boolean;
  signal?: AbortSignal;
  /**
   * Where messages for this request go (progress, log messages, list_changed, server-to-client
   * requests); false when it could not be written (the client takes no stream).
   */
  notify?: (notification: {
    method: string;
    params?: Record<string, unknown>;
    id?: string | number;
  }) => boolean | void;
  session?: Session;
  /** The client's network address (for the audit line). */
  address?: string;
  /** The HTTP request's `traceparent`/`tracestate` (a call's `_meta.traceparent` wins). */
  trace?: TraceHeaders;
}

/** Answers one parsed JSON-RPC message; `undefined` for notifications and responses. */
export type Dispatch = (message: unknown, context?: DispatchContext) => Promise<unknown>;

export interface MethodDispatchOptions {
  pipeline: CallPipeline;
  gateway: GatewayMode;
  catalog: Catalog;
  sessions: Sessions;
  /** Server-to-client requests, the clients' own upstream sessions, tasks. */
  bridge: ProtocolBridge;
  serverInfo: { name: string; version: string };
  instructions?: string;
  /** `cacheScope` of list results in 2026-07-28 (`private` when auth is on). */
  cacheScope: 'private' | 'public';
  /** Told of the aggregated tools/list's hidden counts (the forwarder's gauges). */
  onToolsListed?: (hiddenByPolicy: number, unavailable: number) => void;
}

/** The transport-free core: one JSON-RPC message in, its answer out (HTTP and stdio share it). */
export function createMethodDispatch(options: MethodDispatchOptions): Dispatch {
  const { pipeline, gateway, catalog, sessions, serverInfo, bridge } = options;

  function capabilities(modern = false): Record<string, unknown> {
    if (modern) {
      // resources/subscribe and core tasks are not in 2026-07-28; its tasks are an extension.
      const { tasks: _tasks, ...rest } = capabilities();
      return {
        ...rest,
        resources: { listChanged: true },
        extensions: { [TASKS_EXTENSION]: {} },
      };
    }
    return {
      tools: { listChanged: true },
      // Core tasks (2025-11-25): task-augmented tools/call of upstreams that offer it.
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      // Subscriptions go to the client's own upstream session; its updates reach the client.
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
    };
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
          capabilities: capabilities(true),
          // Where 2026-07-28 clients (the official SDK, @ai-sdk/mcp) read who we are; the
          // top-level copy is for clients written against earlier drafts.
          _meta: { [SERVER_INFO_META_KEY]: serverInfo },
          serverInfo,
          ...(options.instructions ? { instructions: options.instructions } : {}),
        };
      case 'ping':
        return {};
      case 'logging/setLevel': {
        // The level is the client's own upstream sessions' (their log messages reach it).
        const servers =
          route !== undefined ? [route] : pipeline.source.servers().map((s) => s.name);
        if (context.session)
          await bridge.sessionRequest(
            context.session,
            'logging/setLevel',
            params,
            servers,
            context.signal,
          );
        return {};
      }
      case 'tools/list': {
        const { tools, hiddenByPolicy, unavailable } = pipeline.visibleTools(context.token, route);
        if (route === undefined) options.onToolsListed?.(hiddenByPolicy, unavailable);
        // What each upstream lists to a client with this one's capabilities.
        const offered = await bridge.visible(
          tools,
          context.modern
            ? bridge.modernOwner({
                token: context.token,
                modernCapabilities: clientCapabilitiesOf(params),
              })
            : bridge.ownerOf(context.session),
        );
        if (route === undefined)
          return {
            tools: gateway.list(await pipeline.listedFor(context.token, offered), context.token),
          };
        return { tools: offered.map((entry) => listedTool(entry, entry.tool.originalName)) };
      }
      case 'tools/call': {
        if (typeof params.name !== 'string')
          throw new JsonRpcFault(INVALID_PARAMS, 'params.name: expected the tool name');
        const name = params.name;
        // The name resolves once: to a tool of the route, a tool of the aggregated listing, a
        // gateway tool, or (code mode's `execute_code`) a tool made for this caller.
        const entry =
          route !== undefined ? pipeline.index.onRoute(route, name) : pipeline.tools().get(name);
        if (!entry && route !== undefined) throw unknownTool(name);
        const meta = withTraceHeaders(
          isRecord(params._meta) ? params._meta : undefined,
          context.trace,
        );
        const token = meta?.progressToken;
        const {
          name: _name,
          arguments: _args,
          _meta: _m,
          ...extraParams
        } = params as Record<string, unknown>;
        const gatewayed = entry === undefined ? gateway.serverOf(name, context.token) : undefined;
        const call = (args: unknown, callContext: CallContext) =>
          entry !== undefined
            ? pipeline.run(entry, entry.tool.name, args, callContext, name)
            : gatewayed !== undefined
              ? gateway.call(gatewayed, args, callContext)
              : pipeline.call(name, args, callContext);
        const stream = context.notify
          ? (message: Record<string, unknown>) => context.notify!(message as never) !== false
          : undefined;
        // A 2026-07-28 client that takes tasks gets one for a tool that must run as a task (the
        // gateway asks a 2025-era upstream for it); one that does not is told what it lacks.
        const taskSupport = entry?.tool.execution?.taskSupport;
        if (context.modern && taskSupport === 'required') {
          if (!takesTasks(clientCapabilitiesOf(params)))
            throw new JsonRpcFault(-32003, 'Missing required client capability', {
              requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
            });
          extraParams.task = {};
        }
        const client = bridge.channel(
          {
            token: context.token,
            session: context.session,
            notify: stream,
            ...(context.modern ? { modernCapabilities: clientCapabilitiesOf(params) ?? {} } : {}),
          },
          isRecord(extraParams.task),
        );
        const untrack = client ? bridge.trackCall(context.session, stream) : undefined;
        const calling = call(params.arguments, {
          token: context.token,
          signal: context.signal,
          ...(client ? { client } : {}),
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
          onNotification: stream
            ? (message: UpstreamMessage, server?: string) => bridge.relay(server, message, stream)
            : undefined,
        });
        if (untrack) void calling.finally(untrack).catch(() => undefined);
        return calling;
      }
      case 'tasks/get':
      case 'tasks/result':
      case 'tasks/list':
      case 'tasks/cancel':
      case 'tasks/update':
        return bridge.task(
          request.method,
          params,
          {
            ...(context.signal ? { signal: context.signal } : {}),
            ...(context.token ? { token: context.token } : {}),
            ...(context.session ? { session: context.session } : {}),
            ...(context.notify
              ? { notify: (message) => context.notify!(message as never) !== false }
              : {}),
          },
          context.modern === true,
        );
      case 'prompts/list':
        return catalog.listPrompts(route, context.token, context.signal);
      case 'prompts/get':
        return catalog.getPrompt(params, route, context.token, context.signal);
      case 'resources/list':
      case 'resources/templates/list':
        return catalog.listResources(request.method, route, context.token, context.signal);
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        return catalog.subscribe(
          request.method,
          params,
          route,
          context.token,
          context.signal,
          (server) =>
            context.session
              ? bridge.sessionRequest(
                  context.session,
                  request.method,
                  params,
                  [server],
                  context.signal,
                )
              : Promise.resolve(undefined),
        );
      case 'resources/read':
        return catalog.readResource(params, route, context.token, context.signal);
      case 'completion/complete':
        return catalog.complete(params, route, context.token, context.signal);
      default:
        throw new JsonRpcFault(METHOD_NOT_FOUND, `Method not found: ${request.method}`);
    }
  }

  /** Whether 2026-07-28 client capabilities declare the tasks extension. */
  function takesTasks(capabilities: unknown): boolean {
    return (
      isRecord(capabilities) &&
      isRecord(capabilities.extensions) &&
      capabilities.extensions[TASKS_EXTENSION] !== undefined
    );
  }

  /** A 2026-07-28 request's client capabilities, from its `_meta` envelope. */
  function clientCapabilitiesOf(params: Record<string, unknown>): unknown {
    return isRecord(params._meta) ? params._meta[CLIENT_CAPABILITIES_META_KEY] : undefined;
  }

  function decorate(method: string, result: unknown, modern: boolean): unknown {
    if (!modern || !isRecord(result)) return result;
    // An upstream's `input_required` result keeps its resultType; everything else is complete.
    const out: Record<string, unknown> = { resultType: 'complete', ...result };
    // Cacheable results (2026-07-28): the lists, discovery and a resource read.
    if (LIST_METHODS.has(method) || method === 'server/discover' || method === 'resources/read') {
      out.ttlMs = 0;
      out.cacheScope = options.cacheScope;
    }
    return out;
  }

  return async function dispatch(message, context = {}) {
    if (Array.isArray(message)) {
      return errorResponse(INVALID_REQUEST, BATCHES_REFUSED);
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
      return errorResponse(
        INVALID_REQUEST,
        'Invalid Request: expected a JSON-RPC 2.0 request object',
        id,
      );
    }
    const badId = invalidIdReason(message);
    if (badId) return errorResponse(INVALID_REQUEST, badId);
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
      // Not waited for: a flood of these is coalesced by the bridge, not queued here.
      if (request.method === 'notifications/roots/list_changed' && context.session)
        void bridge.rootsChanged(context.session);
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
  };
}
