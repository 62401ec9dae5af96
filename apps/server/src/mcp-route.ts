import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import {
  INVALID_REQUEST,
  UNAUTHORIZED,
  checkMcpAccept,
  invalidIdReason,
  EVENT_STREAM_HEADERS,
  respondWithProgress,
  sseMessage,
  type AuthToken,
  type DispatchContext,
  type Forwarder,
} from '@toolwire/forwarder';
import { HttpError, authenticate, markLongLived, readBody, sendJson } from './http-util.js';
import type { SessionCodec, SessionClaims } from '@toolwire/forwarder';
import type { SharedState } from './shared-state.js';

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';

type Session = NonNullable<DispatchContext['session']>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The parts of the running gateway an MCP request needs (swapped as a whole on reload). */
export interface McpRouteContext {
  forwarder: Forwarder;
  tokens: ReadonlyMap<string, AuthToken>;
  shared: SharedState;
  codec: SessionCodec;
  maxBody: number;
}

/**
 * Serves `/mcp` and `/servers/<name>/mcp`. The 2026-07-28 leg, and passthrough to HTTP upstreams,
 * go to the forwarder as they are. The 2025-era session leg is served here on the forwarder's
 * transport-free `dispatch`, with session ids that carry their own state (`SessionCodec`), so any
 * instance behind a load balancer can answer any request of any session.
 */
export class McpRoute {
  /** Per-instance bookkeeping only (open GET streams, cancellable in-flight requests). */
  private readonly local = new Map<string, Session>();

  async handle(
    ctx: McpRouteContext,
    req: IncomingMessage,
    res: ServerResponse,
    server: string | undefined,
  ): Promise<void> {
    const { forwarder } = ctx;
    checkMcpAccept(req);
    if (server !== undefined && forwarder.pipeline.httpUpstream(server)) {
      forwarder.handleMcp(req, res, { server });
      return;
    }
    if (
      server !== undefined &&
      !forwarder.pipeline.source.servers().some((s) => s.name === server)
    ) {
      throw new HttpError(404, `No upstream named "${server}"`);
    }
    if (req.method === 'POST') {
      const body = await readBody(req, ctx.maxBody);
      let message: unknown;
      try {
        message = JSON.parse(body.toString('utf8'));
      } catch {
        message = undefined;
      }
      const badId = isRecord(message) ? invalidIdReason(message) : undefined;
      if (badId) {
        sendJson(res, 400, {
          jsonrpc: '2.0',
          id: null,
          error: { code: INVALID_REQUEST, message: badId },
        });
        return;
      }
      if (!isRecord(message) || !isLegacyRequest(req, message)) {
        if (isRecord(message) && message.method === 'subscriptions/listen') markLongLived(res);
        // Malformed bodies too: the forwarder answers them with the right JSON-RPC error.
        forwarder.handleMcp(replay(req, body), res, { server });
        return;
      }
      await this.post(ctx, req, res, server, message);
      return;
    }
    if (req.method === 'GET') return this.get(ctx, req, res, server);
    if (req.method === 'DELETE') return this.delete(ctx, req, res, server);
    throw new HttpError(405, `Method ${req.method} not allowed`, INVALID_REQUEST, {
      allow: 'GET, POST, DELETE',
    });
  }

  /** Sends `notifications/tools/list_changed` to every open legacy GET stream of that route. */
  toolsChanged(server: string): void {
    const line = sseMessage({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    for (const session of this.local.values()) {
      if (session.server !== undefined && session.server !== server) continue;
      for (const stream of session.streams) stream.write(line);
    }
  }

  /** Aborts a request of a session running here (a cancellation received by another instance). */
  cancel(sessionId: string, requestId: string | number): void {
    this.local.get(sessionId)?.inflight.get(requestId)?.abort();
  }

  /** Ends every open stream and aborts in-flight legacy requests (shutdown). */
  closeAll(): void {
    for (const session of this.local.values()) {
      for (const controller of session.inflight.values()) controller.abort();
      for (const stream of session.streams) stream.end();
    }
    this.local.clear();
  }

  private async post(
    ctx: McpRouteContext,
    req: IncomingMessage,
    res: ServerResponse,
    server: string | undefined,
    message: Record<string, unknown>,
  ): Promise<void> {
    const token = authenticate(req, ctx.tokens);
    if (message.method === 'initialize') {
      const response = (await ctx.forwarder.dispatch(message, {
        token,
        server,
        modern: false,
      })) as {
        result?: { protocolVersion?: string };
      };
      const headers: Record<string, string> = {};
      if (response.result) {
        headers['mcp-session-id'] = ctx.codec.mint({
          protocolVersion: response.result.protocolVersion ?? '2025-11-25',
          server: server ?? null,
          token: ctx.codec.tokenFingerprint(token?.token),
        });
      }
      sendJson(res, 200, response, headers);
      return;
    }
    const session = await this.session(ctx, req, token, server);
    const isRequest =
      message.id !== undefined && message.id !== null && typeof message.method === 'string';
    if (!isRequest) {
      const cancelled =
        message.method === 'notifications/cancelled' && isRecord(message.params)
          ? message.params.requestId
          : undefined;
      if (
        (typeof cancelled === 'string' || typeof cancelled === 'number') &&
        !session.inflight.has(cancelled)
      ) {
        // Running on another instance (or already done): tell the others.
        ctx.shared.publishCancel(session.id, cancelled);
      }
      await ctx.forwarder.dispatch(message, { token, server, session, modern: false });
      res.writeHead(202).end();
      return;
    }
    await answer(req, res, message, ctx.forwarder, { token, server, session, modern: false });
  }

  private async session(
    ctx: McpRouteContext,
    req: IncomingMessage,
    token: AuthToken | undefined,
    server: string | undefined,
  ): Promise<Session> {
    const id = req.headers['mcp-session-id'];
    if (typeof id !== 'string') {
      throw new HttpError(
        400,
        'Bad Request: Mcp-Session-Id header is required (send initialize first, or use protocol 2026-07-28)',
      );
    }
    const claims: SessionClaims | undefined = ctx.codec.verify(id);
    if (!claims || claims.server !== (server ?? null) || (await ctx.shared.isRevoked(id))) {
      this.local.delete(id);
      throw new HttpError(404, 'Session not found', -32001);
    }
    if (claims.token !== ctx.codec.tokenFingerprint(token?.token)) {
      throw new HttpError(403, 'Forbidden: the session belongs to another token', UNAUTHORIZED);
    }
    let session = this.local.get(id);
    if (!session) {
      session = {
        id,
        protocolVersion: claims.protocolVersion,
        token,
        server,
        streams: new Set(),
        lastSeen: Date.now(),
        inflight: new Map(),
      };
      this.local.set(id, session);
    }
    session.lastSeen = Date.now();
    this.sweep();
    return session;
  }

  private sweep(): void {
    const cutoff = Date.now() - 30 * 60_000;
    for (const [id, session] of this.local) {
      if (session.lastSeen < cutoff && session.streams.size === 0 && session.inflight.size === 0) {
        this.local.delete(id);
      }
    }
  }

  private async get(
    ctx: McpRouteContext,
    req: IncomingMessage,
    res: ServerResponse,
    server: string | undefined,
  ): Promise<void> {
    const token = authenticate(req, ctx.tokens);
    const session = await this.session(ctx, req, token, server);
    markLongLived(res);
    res.writeHead(200, { ...EVENT_STREAM_HEADERS, 'mcp-session-id': session.id });
    res.write(': stream open\n\n');
    session.streams.add(res);
    const keepAlive = setInterval(() => res.write(': keepalive\n\n'), 15_000);
    keepAlive.unref();
    res.on('close', () => {
      clearInterval(keepAlive);
      session.streams.delete(res);
    });
  }

  private async delete(
    ctx: McpRouteContext,
    req: IncomingMessage,
    res: ServerResponse,
    server: string | undefined,
  ): Promise<void> {
    const token = authenticate(req, ctx.tokens);
    const session = await this.session(ctx, req, token, server);
    for (const controller of session.inflight.values()) controller.abort();
    for (const stream of session.streams) stream.end();
    this.local.delete(session.id);
    await ctx.shared.revokeSession(session.id);
    res.writeHead(200).end();
  }
}

const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

/**
 * A plain 2025-era request: no modern version header, no `_meta` protocol envelope and no
 * `Mcp-Method` header (the forwarder's own rule). Anything else is the forwarder's to classify.
 */
function isLegacyRequest(req: IncomingMessage, message: Record<string, unknown>): boolean {
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && !LEGACY_VERSIONS.includes(String(version))) return false;
  if (req.headers['mcp-method'] !== undefined) return false;
  const envelope =
    isRecord(message.params) && isRecord(message.params._meta)
      ? message.params._meta[META_VERSION]
      : undefined;
  return envelope === undefined;
}

/** A request whose body was already read, readable again for a handler that reads it itself. */
function replay(req: IncomingMessage, body: Buffer): IncomingMessage {
  const stream = Readable.from([body]) as unknown as IncomingMessage;
  Object.assign(stream, {
    headers: req.headers,
    method: req.method,
    url: req.url,
    httpVersion: req.httpVersion,
    socket: req.socket,
  });
  return stream;
}

/** Answers one request as JSON, upgrading to SSE when notifications (progress) come first. */
async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  message: Record<string, unknown>,
  forwarder: Forwarder,
  context: DispatchContext & { session: Session },
): Promise<void> {
  const id = message.id as string | number;
  const controller = new AbortController();
  context.session.inflight.set(id, controller);
  const headers = { 'mcp-session-id': context.session.id };
  try {
    await respondWithProgress(req, res, { controller, headers }, (notify) =>
      forwarder.dispatch(message, { ...context, signal: controller.signal, notify }),
    );
  } finally {
    context.session.inflight.delete(id);
  }
}
