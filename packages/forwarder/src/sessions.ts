import type { ServerResponse } from 'node:http';
import type { AuthToken } from '@toolwire/config';
import { callerKey, limitRefusal } from './caller-limits.js';
import { HttpError } from './http-helpers.js';
import { UNAUTHORIZED, type JsonRpcId } from './json-rpc.js';
import { SESSION_MAX_AGE_MS, SessionCodec, type SessionClaims } from './session-codec.js';
import {
  memorySessionStore,
  recordStoreOf,
  type RecordStore,
  type SessionStore,
} from './session-store.js';
import { Subscriptions, type ListKind, type Subscription } from './subscriptions.js';

export type { ListKind, Subscription } from './subscriptions.js';

/** A 2025-era session as this process knows it: its claims plus what runs here for it now. */
export interface Session {
  id: string;
  protocolVersion: string;
  token?: AuthToken;
  server?: string;
  /** Open GET streams on this instance. */
  streams: Set<ServerResponse>;
  lastSeen: number;
  /** Requests running on this instance, by the client's request id. */
  inflight: Map<JsonRpcId, AbortController>;
  /** The client capabilities mirrored upstream (from `initialize`), when it declared any. */
  capabilities?: Record<string, unknown>;
}

export interface SessionsOptions {
  /** Signs session ids; instances that share it share sessions (default: a random secret). */
  secret?: Buffer;
  /** Ended ids and cancellations shared with the other instances (default: this process's own). */
  store?: SessionStore;
  /** @deprecated Pass `store`. */
  revocations?: Pick<SessionStore, 'revokeSession' | 'isRevoked'>;
  /** Per-instance bookkeeping of a session idle this long is dropped (default 30 min). */
  idleMs?: number;
  /** @deprecated Pass `store` with `publishCancel`. */
  publishCancel?: (sessionId: string, requestId: string | number) => void;
  /** Told of each long-lived response (GET streams, subscriptions), e.g. so shutdown does not wait for it. */
  onStream?: (res: ServerResponse) => void;
}

/**
 * The one kind of 2025-era session, and the 2026-07-28 subscriptions: ids are signed claims
 * (`SessionCodec`), so any instance with the same secret, and any forwarder a config reload
 * swaps in, serves any session; only open streams and running requests are per process. Pass one
 * `Sessions` to every forwarder of a process (`createForwarder({ sessions })`) and streams outlive
 * reloads.
 */
export class Sessions {
  readonly codec: SessionCodec;
  /** The 2026-07-28 subscriptions (list_changed reaches them with the GET streams). */
  readonly subscriptions: Subscriptions;
  /** Records every instance sees: tasks, upstream sessions, answered server-to-client requests. */
  readonly records: RecordStore;
  private readonly store: SessionStore;
  private readonly local = new Map<string, Session>();
  /** Live sessions (in `local`) and open streams of each caller, for its limits. */
  private readonly sessionsOf = new Map<string, number>();
  private readonly streamsOf = new Map<string, number>();
  // A session seen here before is not re-verified (two HMACs) on each of its requests.
  private readonly claimsOf = new WeakMap<Session, SessionClaims>();
  private readonly fingerprints = new WeakMap<AuthToken, string>();
  private readonly idleMs: number;
  private readonly options: SessionsOptions;
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: SessionsOptions = {}) {
    this.options = options;
    this.codec = new SessionCodec(options.secret ?? SessionCodec.randomSecret());
    this.store = options.store ?? options.revocations ?? memorySessionStore();
    this.records = recordStoreOf(this.store);
    this.store.onCancel?.((sessionId, requestId) => this.cancelHere(sessionId, requestId));
    this.subscriptions = new Subscriptions(options.onStream);
    this.idleMs = options.idleMs ?? 30 * 60_000;
    this.sweeper = setInterval(() => this.sweep(), Math.min(this.idleMs, 60_000));
    this.sweeper.unref();
  }

  /** Sessions this process served within the idle window (or still streaming), for metrics. */
  get localCount(): number {
    return this.local.size;
  }

  /**
   * A new session id for an answered `initialize` (with the capabilities mirrored upstream). With
   * `limit`, a caller that already has that many live sessions here is refused (a 429 rate-limit
   * `HttpError` with `retryAfterMs`: about when its oldest idle one is dropped), until it ends one
   * (DELETE) or one idles out.
   */
  open(
    protocolVersion: string,
    token: AuthToken | undefined,
    server: string | undefined,
    limit?: number,
    capabilities?: Record<string, unknown>,
  ): string {
    const client = callerKey(token);
    const live = this.sessionsOf.get(client) ?? 0;
    if (limit !== undefined && live >= limit) {
      throw limitRefusal(token, 'sessions', live, this.nextIdleDrop(client));
    }
    const id = this.codec.mint({
      protocolVersion,
      server: server ?? null,
      token: this.fingerprint(token),
      ...(capabilities && Object.keys(capabilities).length > 0 ? { caps: capabilities } : {}),
    });
    const claims = this.codec.verify(id);
    const session: Session = {
      id,
      protocolVersion,
      ...(token ? { token } : {}),
      ...(server !== undefined ? { server } : {}),
      streams: new Set(),
      lastSeen: Date.now(),
      inflight: new Map(),
      ...(claims?.caps ? { capabilities: claims.caps } : {}),
    };
    this.remember(session);
    if (claims) this.claimsOf.set(session, claims);
    return id;
  }

  /**
   * Holds one of the caller's open streams (a GET stream, a subscription, a relayed GET) until
   * `res` closes; with `limit`, refuses (a 429 rate-limit `HttpError`) one more than that.
   */
  holdStream(token: AuthToken | undefined, res: ServerResponse, limit?: number): void {
    const client = callerKey(token);
    const open = this.streamsOf.get(client) ?? 0;
    if (limit !== undefined && open >= limit) {
      throw limitRefusal(token, 'streams', open, 5_000);
    }
    this.streamsOf.set(client, open + 1);
    res.once('close', () => {
      const left = (this.streamsOf.get(client) ?? 1) - 1;
      if (left > 0) this.streamsOf.set(client, left);
      else this.streamsOf.delete(client);
    });
  }

  /** The caller's live sessions and open streams here (for tests and metrics). */
  usage(token: AuthToken | undefined): { sessions: number; streams: number } {
    const client = callerKey(token);
    return { sessions: this.sessionsOf.get(client) ?? 0, streams: this.streamsOf.get(client) ?? 0 };
  }

  private remember(session: Session): void {
    if (this.local.has(session.id)) return;
    this.local.set(session.id, session);
    const client = callerKey(session.token);
    this.sessionsOf.set(client, (this.sessionsOf.get(client) ?? 0) + 1);
  }

  private forget(id: string): void {
    const session = this.local.get(id);
    if (!session) return;
    this.local.delete(id);
    const client = callerKey(session.token);
    const left = (this.sessionsOf.get(client) ?? 1) - 1;
    if (left > 0) this.sessionsOf.set(client, left);
    else this.sessionsOf.delete(client);
  }

  /** Milliseconds until the sweep drops the caller's longest-idle session that could be dropped. */
  private nextIdleDrop(client: string): number {
    let oldest = Number.POSITIVE_INFINITY;
    for (const session of this.local.values()) {
      if (callerKey(session.token) !== client) continue;
      if (session.streams.size > 0 || session.inflight.size > 0) continue;
      oldest = Math.min(oldest, session.lastSeen);
    }
    const at = Number.isFinite(oldest) ? oldest + this.idleMs : Date.now() + this.idleMs;
    // The sweep runs once a minute at most.
    return Math.max(1_000, at - Date.now() + Math.min(this.idleMs, 60_000));
  }

  /** The token's fingerprint under the session secret ('' without auth): who owns a task. */
  fingerprint(token: AuthToken | undefined): string {
    if (token === undefined) return '';
    let fingerprint = this.fingerprints.get(token);
    if (fingerprint === undefined) {
      // An access token is refreshed while its session goes on: the session is the subject's.
      const identity = token.identity;
      fingerprint = this.codec.tokenFingerprint(
        identity
          ? `${identity.kind}\u0000${identity.issuer}\u0000${identity.subject}`
          : token.token,
      );
      this.fingerprints.set(token, fingerprint);
    }
    return fingerprint;
  }

  /** The session a request names; 400 without an id, 404 for an unknown or ended one, 403 for another token's. */
  async resolve(
    id: string | string[] | undefined,
    token: AuthToken | undefined,
    server: string | undefined,
  ): Promise<Session> {
    if (typeof id !== 'string') {
      throw new HttpError(
        400,
        'Bad Request: Mcp-Session-Id header is required (send initialize first, or use protocol 2026-07-28)',
      );
    }
    let session = this.local.get(id);
    const claims = (session && this.claimsOf.get(session)) ?? this.codec.verify(id);
    if (
      !claims ||
      Date.now() - claims.issuedAt > SESSION_MAX_AGE_MS ||
      claims.server !== (server ?? null) ||
      (await this.store.isRevoked(id))
    ) {
      this.forget(id);
      throw new HttpError(404, 'Session not found', -32001);
    }
    if (claims.token !== this.fingerprint(token)) {
      throw new HttpError(403, 'Forbidden: the session belongs to another token', UNAUTHORIZED);
    }
    session ??= this.local.get(id);
    if (!session) {
      session = {
        id,
        protocolVersion: claims.protocolVersion,
        ...(token ? { token } : {}),
        ...(server !== undefined ? { server } : {}),
        streams: new Set(),
        lastSeen: Date.now(),
        inflight: new Map(),
        ...(claims.caps ? { capabilities: claims.caps } : {}),
      };
      this.remember(session);
      this.claimsOf.set(session, claims);
    }
    session.lastSeen = Date.now();
    return session;
  }

  /** Keeps `res` as a GET stream of the session until it closes. */
  addStream(session: Session, res: ServerResponse): void {
    this.options.onStream?.(res);
    session.streams.add(res);
    const keepAlive = setInterval(() => res.write(': keepalive\n\n'), 15_000);
    keepAlive.unref();
    res.on('close', () => {
      clearInterval(keepAlive);
      session.streams.delete(res);
    });
  }

  /** The sessions this process knows (served lately or streaming). */
  localSession(id: string): Session | undefined {
    return this.local.get(id);
  }

  /** Writes a message to the session's GET streams on this instance; false when it has none. */
  sendToStreams(session: Session, message: Record<string, unknown>): boolean {
    const open = [...session.streams].filter((stream) => !stream.writableEnded);
    const line = `event: message\ndata: ${JSON.stringify(message)}\n\n`;
    for (const stream of open) stream.write(line);
    return open.length > 0;
  }

  addSubscription(subscription: Subscription): void {
    this.subscriptions.add(subscription);
  }

  /** Aborts a request of a session; one not running here is published for the other instances. */
  cancel(sessionId: string, requestId: string | number): void {
    const controller = this.local.get(sessionId)?.inflight.get(requestId);
    if (controller) controller.abort();
    else if (this.options.publishCancel) this.options.publishCancel(sessionId, requestId);
    else this.store.publishCancel?.(sessionId, requestId);
  }

  /** A cancellation another instance published: abort it if it runs here. */
  cancelHere(sessionId: string, requestId: string | number): void {
    this.local.get(sessionId)?.inflight.get(requestId)?.abort();
  }

  /** DELETE: stops what runs here for it, and revokes the id everywhere. */
  async end(session: Session): Promise<void> {
    for (const controller of session.inflight.values()) controller.abort();
    for (const stream of session.streams) stream.end();
    this.forget(session.id);
    await this.store.revokeSession(session.id);
  }

  /**
   * `notifications/<kind>/list_changed` to every GET stream and subscription that covers `server`.
   * A GET stream's event gets the id the store logged it under (written once the store answered;
   * without one when it did not), so a client resumes with `Last-Event-ID` on any instance.
   */
  broadcast(kind: ListKind, server?: string): void {
    const data = JSON.stringify({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` });
    const write = (id?: string): void => {
      const line = `event: message\n${id !== undefined ? `id: ${id}\n` : ''}data: ${data}\n\n`;
      for (const session of this.local.values()) {
        if (server !== undefined && session.server !== undefined && session.server !== server)
          continue;
        for (const stream of session.streams) stream.write(line);
      }
    };
    if (this.store.appendEvent)
      this.store.appendEvent({ server: server ?? null, data }).then(write, () => write());
    else write();
    this.subscriptions.broadcast(kind, server);
  }

  /** Writes to a resumed GET stream the events after `lastEventId` that concern its session. */
  async replay(session: Session, res: ServerResponse, lastEventId: string): Promise<void> {
    const events = (await this.store.eventsAfter?.(lastEventId).catch(() => [])) ?? [];
    for (const event of events) {
      if (event.server !== null && session.server !== undefined && event.server !== session.server)
        continue;
      res.write(`event: message\nid: ${event.id}\ndata: ${event.data}\n\n`);
    }
  }

  /** Shutdown: ends every stream and aborts what runs here. */
  close(): void {
    clearInterval(this.sweeper);
    this.subscriptions.close();
    for (const session of this.local.values()) {
      for (const controller of session.inflight.values()) controller.abort();
      for (const stream of session.streams) stream.end();
    }
    this.local.clear();
    this.sessionsOf.clear();
  }

  private sweep(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const [id, session] of this.local) {
      if (session.lastSeen < cutoff && session.streams.size === 0 && session.inflight.size === 0)
        this.forget(id);
    }
  }
}
