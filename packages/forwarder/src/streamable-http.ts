import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthToken } from '@toolwire/config';
import type { ProtocolBridge } from './bridge/protocol-bridge.js';
import { mirroredCapabilities } from './bridge/client-capabilities.js';
import { ServerRequests } from './bridge/server-requests.js';
import type { CallPipeline } from './call/call-pipeline.js';
import type { CallerLimits } from './caller-limits.js';
import { classifyEra } from './classify-era.js';
import type { HttpGuard } from './http-guard.js';
import type { HttpUpstream } from './http-upstream.js';
import {
  HttpError,
  readBody,
  respondWithProgress,
  sendHttpError,
  sendJson,
} from './http-helpers.js';
import {
  errorResponse,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  invalidIdReason,
  isRecord,
  JsonRpcFault,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  type JsonRpcError,
  type JsonRpcId,
} from './json-rpc.js';
import { LEGACY_PROTOCOLS, MODERN_PROTOCOL, REMOVED_IN_MODERN } from './mcp-protocol.js';
import type { Dispatch, DispatchContext } from './method-dispatch.js';
import { relayPassthrough } from './passthrough-relay.js';
import type { Session, Sessions } from './sessions.js';
import type { ToolSource } from './tool-source.js';
import { traceHeadersOf } from './tracing.js';

export interface StreamableHttpOptions {
  dispatch: Dispatch;
  sessions: Sessions;
  bridge: ProtocolBridge;
  pipeline: CallPipeline;
  source: ToolSource;
  /** The caller of a request (`Authenticator.authenticate`): rejects with a 401 `HttpError`. */
  authenticate: (req: IncomingMessage) => Promise<AuthToken | undefined>;
  /** Host, Origin, fetch-metadata, Content-Type and Accept checks, once per request. */
  guard: HttpGuard;
  maxBodyBytes: number;
  /** True once the forwarder is closing: requests are answered 503. */
  closed: () => boolean;
  /** What one caller may hold (sessions, streams) at once. */
  limits: (token: AuthToken | undefined) => CallerLimits;
}

class HttpFailure extends HttpError {
  constructor(status: number, rpc: JsonRpcError, headers: Record<string, string> = {}) {
    super(status, rpc.message, rpc.code, headers, rpc.data);
  }
}

/**
 * MCP's streamable HTTP transport over `dispatch`: both revisions on one endpoint (2025-era
 * sessions with GET streams and DELETE, 2026-07-28 stateless requests and `subscriptions/listen`),
 * and the passthrough relay of `/servers/<name>/mcp` for HTTP upstreams. Returns the handler of
 * one request; `server` set means the passthrough route of that upstream.
 */
export function createStreamableHttp(
  options: StreamableHttpOptions,
): (req: IncomingMessage, res: ServerResponse, route?: { server?: string }) => void {
  const { dispatch, sessions, pipeline, maxBodyBytes: maxBody } = options;

  async function servePost(
    req: IncomingMessage,
    res: ServerResponse,
    route: string | undefined,
    token: AuthToken | undefined,
  ): Promise<void> {
    const raw = await readBody(req, maxBody);
    let message: unknown;
    try {
      message = JSON.parse(raw.toString('utf8'));
    } catch {
      sendJson(res, 400, errorResponse(PARSE_ERROR, 'Parse error: the body is not valid JSON'));
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
      sendJson(res, 400, errorResponse(INVALID_REQUEST, badId));
      return;
    }
    const isRequest =
      message.id !== undefined && message.id !== null && typeof message.method === 'string';
    const era = classifyEra(req, message);
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
        sessions.holdStream(token, res, options.limits(token).streams);
        const params = isRecord(message.params) ? message.params : {};
        const filter = isRecord(params.notifications) ? params.notifications : {};
        sessions.subscriptions.listen(res, message.id as JsonRpcId, token, route, filter);
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
        const params = isRecord(message.params) ? message.params : {};
        headers['mcp-session-id'] = sessions.open(
          response.result.protocolVersion ?? LEGACY_PROTOCOLS[0],
          token,
          route,
          options.limits(token).sessions,
          mirroredCapabilities(params.capabilities),
        );
      }
      sendJson(res, 200, response, headers);
      return;
    }
    const session = await sessionFor(req, token, route);
    if (!isRequest && ServerRequests.isResponse(message)) {
      // The client's answer to a server-to-client request we sent it for an upstream.
      try {
        await options.bridge.requests.answer(session.id, token?.client ?? 'anonymous', message);
      } catch (error) {
        if (!(error instanceof JsonRpcFault)) throw error;
        sendJson(res, 400, { jsonrpc: '2.0', id: message.id ?? null, error: error.toError() });
        return;
      }
      res.writeHead(202).end();
      return;
    }
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
          trace: traceHeadersOf(req.headers),
        }),
      );
    } finally {
      context.session?.inflight.delete(id);
    }
  }

  async function serveGet(
    req: IncomingMessage,
    res: ServerResponse,
    route: string | undefined,
    token: AuthToken | undefined,
  ): Promise<void> {
    const session = await sessionFor(req, token, route);
    sessions.holdStream(token, res, options.limits(token).streams);
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'mcp-session-id': session.id,
    });
    res.write(': stream open\n\n');
    sessions.addStream(session, res);
    // A resumed stream first gets what was published while it was away (on any instance).
    const lastEventId = req.headers['last-event-id'];
    if (typeof lastEventId === 'string' && lastEventId !== '')
      await sessions.replay(session, res, lastEventId);
  }

  async function serveDelete(
    req: IncomingMessage,
    res: ServerResponse,
    route: string | undefined,
    token: AuthToken | undefined,
  ): Promise<void> {
    const session = await sessionFor(req, token, route);
    await sessions.end(session);
    await options.bridge.end(session);
    res.writeHead(200).end();
  }

  /**
   * An idle (lazy) upstream is started by its own route, as its gateway tool starts it: its tools
   * are then listed and callable there. A failure to start shows as its status; the request goes on.
   */
  async function startIdle(server: string): Promise<void> {
    const status = options.source.servers().find((s) => s.name === server)?.status;
    if (status === 'idle' && options.source.connect)
      await options.source.connect(server).catch(() => undefined);
  }

  /**
   * Whether a passthrough request is relayed as it is: yes, unless a 2026-07-28 client meets a
   * 2025-era upstream; that client is served by the gateway's own endpoint for the route, which
   * translates (a request naming one of the gateway's sessions stays there too).
   */
  async function relayed(req: IncomingMessage, http: HttpUpstream): Promise<boolean> {
    const session = req.headers['mcp-session-id'];
    if (typeof session === 'string' && sessions.codec.verify(session)) return false;
    if (!http.protocolVersion) await http.connect().catch(() => undefined);
    if (!http.protocolVersion) return true;
    const clientModern = req.headers['mcp-protocol-version'] === MODERN_PROTOCOL;
    // A 2025-era client is relayed: an upstream that negotiated 2026-07-28 may well keep 2025-era
    // sessions too (its discovery need not say so).
    return clientModern ? http.modern : true;
  }

  return function handleMcp(req, res, route = {}) {
    const server = route.server;
    void (async () => {
      if (options.closed())
        throw new HttpFailure(503, {
          code: INTERNAL_ERROR,
          message: 'The forwarder is shutting down',
        });
      options.guard.check(req, { mcp: true });
      // Authenticated before anything is said of the route: an upstream's name is not a probe.
      const token = await options.authenticate(req);
      if (server !== undefined) {
        const known =
          options.source.servers().some((s) => s.name === server) ||
          pipeline.httpUpstream(server) !== undefined;
        // An upstream the token reaches nothing of is, to it, one that does not exist.
        if (!known || !pipeline.reaches(server, token)) {
          if (known)
            pipeline.recordRefusal(
              `route:${server}`,
              server,
              { token },
              'no grant of this upstream',
            );
          throw new HttpFailure(404, {
            code: INVALID_REQUEST,
            message: `No upstream named "${server}"`,
          });
        }
        const http = pipeline.httpUpstream(server);
        if (http && (await relayed(req, http))) {
          // A relayed GET is the upstream session's stream: it counts as one of the caller's.
          if (req.method === 'GET') sessions.holdStream(token, res, options.limits(token).streams);
          await relayPassthrough({ req, res, server, upstream: http, pipeline, token, maxBody });
          return;
        }
        await startIdle(server);
      }
      if (req.method === 'POST') await servePost(req, res, server, token);
      else if (req.method === 'GET') await serveGet(req, res, server, token);
      else if (req.method === 'DELETE') await serveDelete(req, res, server, token);
      else
        throw new HttpFailure(
          405,
          { code: INVALID_REQUEST, message: `Method ${req.method} not allowed` },
          { allow: 'GET, POST, DELETE' },
        );
    })().catch((error: unknown) => sendHttpError(res, error));
  };
}
