import type { ClientChannel } from '../call/call-context.js';
import type { CallPipeline } from '../call/call-pipeline.js';
import type { ToolEntry } from '../call/tool-index.js';
import type { AuthToken } from '@toolwire/config';
import type { ServerRequestAnswer, UpstreamMessage } from '../http-upstream.js';
import { isRecord } from '../json-rpc.js';
import type { Session, Sessions } from '../sessions.js';
import { capabilityKey, mirroredCapabilities } from './client-capabilities.js';
import { InputRounds } from './input-rounds.js';
import { ServerRequests, type ServerRequestEvent } from './server-requests.js';
import { TaskRegistry, type TaskCaller, type TaskEvent } from './tasks.js';
import {
  UpstreamSessions,
  type UnrelatedMessage,
  type UpstreamOwner,
} from './upstream-sessions.js';

type Notify = (message: Record<string, unknown>) => boolean;

export interface ProtocolBridgeOptions {
  sessions: Sessions;
  pipeline: CallPipeline;
  /** How long a client has to answer a server-to-client request (default 5 minutes). */
  clientRequestTimeoutMs?: number;
  /** Told of every server-to-client request (metrics, audit). */
  onServerRequest?: (event: ServerRequestEvent) => void;
  /** Told of every task event (metrics, audit). */
  onTask?: (event: TaskEvent) => void;
}

/** Who a request comes from, as the bridge needs it. */
export interface BridgeCaller {
  token?: AuthToken;
  session?: Session;
  /** A 2026-07-28 request's client capabilities (its `_meta` envelope). */
  modernCapabilities?: unknown;
  /** The request's stream (upgraded to SSE on first use); false when it cannot be written. */
  notify?: Notify;
  signal?: AbortSignal;
}

/**
 * What the gateway carries between clients and upstreams beyond tools: each client's own upstream
 * sessions (its capabilities mirrored), server-to-client requests routed to the client on whose
 * behalf the upstream works and their answers back, the messages an upstream sends outside a
 * request. Only for upstreams the forwarder reaches over streamable HTTP; others go through the
 * source's one connection.
 */
export class ProtocolBridge {
  readonly upstreamSessions: UpstreamSessions;
  readonly requests: ServerRequests;
  readonly tasks: TaskRegistry;
  readonly rounds: InputRounds;
  /**
   * Sessions without bridged capabilities that keep state upstream all the same (a log level, a
   * resource subscription): their calls take their own upstream session too, on this instance.
   */
  private readonly stateful = new Set<string>();
  /** Sessions whose roots change is being told upstream now (floods are coalesced). */
  private readonly rootsTelling = new Map<string, { again: boolean; done: Promise<void> }>();
  /** Streams of calls in flight per downstream session (for messages sent outside a request). */
  private readonly callStreams = new Map<string, Notify[]>();

  constructor(private readonly options: ProtocolBridgeOptions) {
    const { sessions, pipeline } = options;
    this.upstreamSessions = new UpstreamSessions(sessions.records, (message) => {
      void this.unrelated(message).catch(() => undefined);
    });
    this.requests = new ServerRequests({
      codec: sessions.codec,
      records: sessions.records,
      timeoutMs: options.clientRequestTimeoutMs ?? 300_000,
      upstream: (server) => pipeline.httpUpstream(server),
      onEvent: (event) => options.onServerRequest?.(event),
    });
    this.rounds = new InputRounds({
      codec: sessions.codec,
      timeoutMs: options.clientRequestTimeoutMs ?? 300_000,
      onEvent: (event) => options.onServerRequest?.(event),
    });
    this.tasks = new TaskRegistry({
      records: sessions.records,
      pipeline,
      onEvent: (event) => options.onTask?.(event),
    });
    pipeline.onChange((server) => this.upstreamSessions.toolsChanged(server));
  }

  /** Who owns the tasks a caller creates, and where `tasks/list` finds them. */
  taskCaller(caller: BridgeCaller): TaskCaller {
    const owner = this.options.sessions.fingerprint(caller.token);
    return {
      token: caller.token,
      owner,
      scope: caller.token
        ? `token:${owner}`
        : caller.session
          ? `session:${caller.session.id}`
          : 'anonymous',
      client: caller.token?.client ?? 'anonymous',
    };
  }

  /**
   * The channel of a call: a 2025-era session that declared capabilities to bridge gets its own
   * upstream sessions and server-to-client requests; a task-augmented call gets its task recorded;
   * anything else takes the shared upstream session (`undefined`: the fast path).
   */
  channel(caller: BridgeCaller, augmented: boolean): ClientChannel | undefined {
    if (caller.modernCapabilities !== undefined) return this.modernChannel(caller, augmented);
    const bridged = this.legacyChannel(caller.session, caller.notify);
    if (bridged) return { ...bridged, taskCreated: this.recorder(caller) };
    if (!augmented) return undefined;
    return {
      capabilities: {},
      sessionFor: () => Promise.resolve(undefined),
      forget: () => Promise.resolve(),
      ask: (_server, _session, message) =>
        Promise.resolve({
          error: {
            code: -32601,
            message: `${message.method}: the client did not declare the capability this needs`,
          },
        }),
      taskCreated: this.recorder(caller),
    };
  }

  /**
   * The owner of a 2026-07-28 client's upstream sessions: its token and capability set (it has no
   * session; each request carries its capabilities).
   */
  modernOwner(caller: BridgeCaller): UpstreamOwner | undefined {
    const capabilities = mirroredCapabilities(caller.modernCapabilities);
    const key = capabilityKey(capabilities);
    if (key === '') return undefined;
    return { key: `m:${this.options.sessions.fingerprint(caller.token)}:${key}`, capabilities };
  }

  /**
   * A 2026-07-28 client's call: a 2025-era upstream works in a session for the client's token and
   * capability set, and its questions reach the client as `input_required` results; a 2026-07-28
   * upstream gets the capabilities with the request and asks with `input_required` itself.
   */
  private modernChannel(caller: BridgeCaller, augmented: boolean): ClientChannel | undefined {
    const owner = this.modernOwner(caller);
    if (!owner && !augmented) return undefined;
    const capabilities = owner?.capabilities ?? {};
    const client = caller.token?.client ?? 'anonymous';
    return {
      capabilities,
      sessionFor: (server, http) =>
        owner ? this.upstreamSessions.sessionFor(server, http, owner) : Promise.resolve(undefined),
      forget: (server, upstreamSession) =>
        owner ? this.upstreamSessions.forget(server, owner, upstreamSession) : Promise.resolve(),
      ask: (_server, _session, message) =>
        Promise.resolve({
          error: { code: -32601, message: `${message.method}: not asked outside an input round` },
        }),
      taskCreated: async (server, session, result, tool) =>
        TaskRegistry.modernCreated(
          await this.tasks.created(server, session, result, tool, this.taskCaller(caller)),
        ),
      around: (server, http, extra, send) =>
        http.modern
          ? send({})
          : this.rounds.call(
              {
                owner: owner?.key ?? `m:${this.options.sessions.fingerprint(caller.token)}:`,
                client,
                server,
                capabilities,
              },
              extra,
              (options) => send(options),
            ),
    };
  }

  private recorder(caller: BridgeCaller): NonNullable<ClientChannel['taskCreated']> {
    const who = this.taskCaller(caller);
    return (server, session, result, tool) =>
      this.tasks.created(server, session, result, tool, who);
  }

  /**
   * `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` of a 2025-era client; `tasks/get`,
   * `tasks/update`, `tasks/cancel` of the tasks extension for a 2026-07-28 one (`modern`).
   */
  task(
    method: string,
    params: Record<string, unknown>,
    caller: BridgeCaller,
    modern = false,
  ): Promise<unknown> {
    const channel = this.legacyChannel(caller.session, caller.notify);
    return this.tasks.handle(
      method,
      params,
      this.taskCaller(caller),
      (record) => ({
        ...(caller.signal ? { signal: caller.signal } : {}),
        ...(channel
          ? {
              onRequest: (message: UpstreamMessage) =>
                channel.ask(record.server, record.session ?? undefined, message),
            }
          : {}),
        onNotification: (message: UpstreamMessage) =>
          this.relay(record.server, message, caller.notify),
      }),
      modern,
    );
  }

  /**
   * A notification an upstream sent in a request's stream, passed on; task ids in it (status,
   * related-task) become the ones the client knows.
   */
  relay(server: string | undefined, message: UpstreamMessage, notify: Notify | undefined): void {
    if (!notify || !message.method) return;
    if (server !== undefined && mentionsTask(message)) {
      void this.tasks.outbound(server, message).then((mapped) => {
        if (mapped) notify(notificationOf(mapped.message));
      });
      return;
    }
    notify(notificationOf(message));
  }

  /**
   * The channel of a 2025-era session's request, or `undefined` when the session declared nothing
   * to bridge (its calls take the shared upstream session, the fast path).
   */
  legacyChannel(
    session: Session | undefined,
    notify?: Notify,
  ): Omit<ClientChannel, 'taskCreated'> | undefined {
    if (!session) return undefined;
    const capabilities = mirroredCapabilities(session.capabilities);
    if (capabilityKey(capabilities) === '' && !this.stateful.has(session.id)) return undefined;
    const owner: UpstreamOwner = { key: session.id, capabilities };
    const client = session.token?.client ?? 'anonymous';
    return {
      capabilities,
      sessionFor: (server, http) => this.upstreamSessions.sessionFor(server, http, owner),
      forget: (server, upstreamSession) =>
        this.upstreamSessions.forget(server, owner, upstreamSession),
      ask: async (server, upstreamSession, message) =>
        this.requests.ask(server, upstreamSession, await this.related(server, message), {
          session: session.id,
          client,
          capabilities,
          send: (out) => this.deliver(session, out, notify),
        }),
    };
  }

  /** A request related to a task names the task by the id the client knows. */
  private async related(server: string, message: UpstreamMessage): Promise<UpstreamMessage> {
    if (!mentionsTask(message)) return message;
    return (await this.tasks.outbound(server, message))?.message ?? message;
  }

  /**
   * A request that sets state in the client's own upstream sessions (`logging/setLevel`,
   * `resources/subscribe`): sent in the session of `server`, or of every HTTP upstream of the
   * route. `undefined` when no 2025-era upstream is reached over HTTP (the caller answers).
   */
  async sessionRequest(
    session: Session,
    method: string,
    params: Record<string, unknown>,
    servers: string[],
    signal?: AbortSignal,
  ): Promise<{ result: unknown } | undefined> {
    const reachable = await Promise.all(
      servers.map(async (server) => {
        const http = this.options.pipeline.httpUpstream(server);
        if (http && !http.protocolVersion) await http.connect().catch(() => undefined);
        // 2026-07-28 has neither method: only a 2025-era upstream keeps such state in a session.
        return http?.protocolVersion && !http.modern ? [{ server, http }] : [];
      }),
    );
    const targets = reachable.flat();
    if (targets.length === 0) return undefined;
    this.stateful.add(session.id);
    const owner: UpstreamOwner = {
      key: session.id,
      capabilities: mirroredCapabilities(session.capabilities),
    };
    const results = await Promise.all(
      targets.map(async ({ server, http }) => {
        const upstream = await this.upstreamSessions.sessionFor(server, http, owner);
        const sent = http.request(method, params, {
          timeoutMs: 30_000,
          ...(signal ? { signal } : {}),
          ...(upstream !== undefined ? { session: upstream } : {}),
        });
        // A level for every upstream: one that offers no logging just sends no log messages.
        return method === 'logging/setLevel' ? sent.catch(() => ({})) : sent;
      }),
    );
    return { result: results[0] ?? {} };
  }

  /** The owner of a session's upstream sessions, for listings; `undefined` when it has none. */
  ownerOf(session: Session | undefined): UpstreamOwner | undefined {
    const capabilities = mirroredCapabilities(session?.capabilities);
    return session && (capabilityKey(capabilities) !== '' || this.stateful.has(session.id))
      ? { key: session.id, capabilities }
      : undefined;
  }

  /**
   * Keeps the stream of a call in flight as a way to reach the session's client with what its
   * upstream sessions send outside a request; returns the function that forgets it.
   */
  trackCall(session: Session | undefined, notify: Notify | undefined): () => void {
    if (!session || !notify) return () => {};
    let streams = this.callStreams.get(session.id);
    if (!streams) this.callStreams.set(session.id, (streams = []));
    streams.push(notify);
    return () => {
      const at = streams.indexOf(notify);
      if (at >= 0) streams.splice(at, 1);
      if (streams.length === 0) this.callStreams.delete(session.id);
    };
  }

  /** Writes to the client: the call's own stream, else the session's GET stream, else a call's. */
  private deliver(session: Session, message: Record<string, unknown>, notify?: Notify): boolean {
    if (notify?.(message)) return true;
    if (this.options.sessions.sendToStreams(session, message)) return true;
    const calls = this.callStreams.get(session.id) ?? [];
    for (let i = calls.length - 1; i >= 0; i--) if (calls[i]!(message)) return true;
    return false;
  }

  /**
   * The HTTP upstreams' tools a client may see: an upstream may offer some tools only to clients
   * with sampling, elicitation or roots, so each listing is the one its capability set gets.
   */
  async visible(entries: ToolEntry[], owner: UpstreamOwner | undefined): Promise<ToolEntry[]> {
    const servers = new Set<string>();
    for (const entry of entries) if (!entry.native) servers.add(entry.server);
    const names = new Map<string, Set<string> | undefined>();
    await Promise.all(
      [...servers].map(async (server) => {
        const http = this.options.pipeline.httpUpstream(server);
        if (!http) return;
        try {
          names.set(server, await this.upstreamSessions.toolNames(server, http, owner));
        } catch {
          // Unreachable now: its last known tools stay listed (calls say why they fail).
        }
      }),
    );
    return entries.filter((entry) => {
      const listed = entry.native ? undefined : names.get(entry.server);
      return !listed || listed.has(entry.tool.originalName);
    });
  }

  /**
   * A client of `session` says its roots changed: every upstream session of it is told. A flood of
   * these is coalesced (one telling at a time, the next one at least a second after, for all that
   * came meanwhile), so a client cannot make the upstreams ask for its roots once per
   * notification.
   */
  rootsChanged(session: Session): Promise<void> {
    const state = this.rootsTelling.get(session.id);
    if (state) {
      state.again = true;
      return state.done;
    }
    const next = { again: false, done: Promise.resolve() };
    next.done = (async () => {
      do {
        next.again = false;
        const open = await this.upstreamSessions.sessionsOf(session.id);
        await Promise.all(
          open.map(({ http, session: upstream }) =>
            http.notifySession(upstream, 'notifications/roots/list_changed').catch(() => undefined),
          ),
        );
        if (next.again) await new Promise((resolve) => setTimeout(resolve, 1000).unref?.());
      } while (next.again);
      this.rootsTelling.delete(session.id);
    })();
    this.rootsTelling.set(session.id, next);
    return next.done;
  }

  /** What an upstream sent on one of our sessions' GET streams, passed to the client it is for. */
  private async unrelated({
    server,
    session: upstreamSession,
    owner,
    message,
  }: UnrelatedMessage): Promise<void> {
    const session = this.options.sessions.localSession(owner);
    const http = this.options.pipeline.httpUpstream(server);
    if (owner.startsWith('m:')) {
      // A 2026-07-28 client's pool: a question goes to its latest open round; notifications have
      // no stream to go to (subscriptions/listen carries list changes only).
      if (message.method && message.id !== undefined && message.id !== null) {
        const requestId = message.id;
        const answer = await this.rounds.askOwner(owner, await this.related(server, message));
        await http?.respond(upstreamSession, requestId, answer).catch(() => undefined);
      }
      return;
    }
    if (message.method && message.id !== undefined && message.id !== null) {
      const requestId = message.id;
      const answer: Promise<ServerRequestAnswer> = session
        ? this.requests.ask(server, upstreamSession, await this.related(server, message), {
            session: session.id,
            client: session.token?.client ?? 'anonymous',
            capabilities: mirroredCapabilities(session.capabilities),
            send: (out) => this.deliver(session, out),
          })
        : Promise.resolve({
            error: { code: -32603, message: `${message.method}: the client is not connected here` },
          });
      void answer.then((a) => http?.respond(upstreamSession, requestId, a)).catch(() => undefined);
      return;
    }
    if (!message.method || !session) return;
    if (message.method === 'notifications/tools/list_changed')
      this.upstreamSessions.toolsChanged(server);
    if (mentionsTask(message)) {
      const mapped = await this.tasks.outbound(server, message);
      if (mapped) this.deliver(session, notificationOf(mapped.message));
      return;
    }
    this.deliver(session, notificationOf(message));
  }

  /** A downstream session ended: its upstream sessions end too. */
  end(session: Session): Promise<void> {
    this.stateful.delete(session.id);
    return this.upstreamSessions.end(session.id);
  }

  close(): void {
    this.tasks.close();
    this.rounds.close();
    this.requests.close();
    this.upstreamSessions.close();
  }
}

/** Whether a message names a task of the upstream (its status, or a request related to it). */
function mentionsTask(message: UpstreamMessage): boolean {
  if (message.method === 'notifications/tasks/status') return true;
  const meta = isRecord(message.params) ? message.params._meta : undefined;
  return isRecord(meta) && meta['io.modelcontextprotocol/related-task'] !== undefined;
}

function notificationOf(message: UpstreamMessage): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    method: message.method,
    ...(isRecord(message.params) ? { params: message.params } : {}),
  };
}
