import { createHash } from 'node:crypto';
import type { HttpUpstream, ServerRequestAnswer, UpstreamMessage } from '../http-upstream.js';
import { INVALID_REQUEST, isRecord, JsonRpcFault } from '../json-rpc.js';
import type { SessionCodec } from '../session-codec.js';
import type { RecordStore } from '../session-store.js';
import { admits, capabilityOf, type MirroredCapabilities } from './client-capabilities.js';

/** JSON-RPC error an upstream gets for a request its client did not answer in time. */
export const REQUEST_TIMEOUT = -32001;
/** JSON-RPC error for a server-to-client request the client cannot take (no capability). */
const CAPABILITY_MISSING = -32601;

/** What happened to a server-to-client request, for metrics and the audit line. */
type ServerRequestOutcome =
  'answered' | 'error' | 'timeout' | 'unsupported' | 'undeliverable' | 'refused';

export interface ServerRequestEvent {
  server: string;
  method: string;
  outcome: ServerRequestOutcome;
  /** Whose session (the token's client name, `anonymous` without auth). */
  client: string;
  durationMs: number;
  detail?: string;
}

/** Where a server-to-client request goes: the stream of a call in flight, else the GET stream. */
export interface ClientDelivery {
  /** The downstream session id (responses are accepted from this session only). */
  session: string;
  client: string;
  capabilities: MirroredCapabilities;
  /** Writes the request to the client; false when there is no stream to write it on. */
  send(message: Record<string, unknown>): boolean;
}

interface Pending {
  resolve(answer: ServerRequestAnswer): void;
  timer: NodeJS.Timeout;
}

const PURPOSE = 'server-request';

/**
 * Server-to-client requests (sampling, elicitation, roots) between an upstream and the 2025-era
 * client session it works for. The client sees an id of ours, sealed with the session secret and
 * naming the upstream, the upstream session and request id, and the downstream session: the
 * answer is accepted on any instance of a fleet, from that session only, once (a replayed or forged
 * id is refused). A client that does not answer in time: the upstream gets a timeout error and the
 * client `notifications/cancelled`. A request the client has no capability for gets the protocol's
 * error at once.
 */
export class ServerRequests {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly options: {
      codec: SessionCodec;
      records: RecordStore;
      timeoutMs: number;
      upstream: (server: string) => HttpUpstream | undefined;
      onEvent: (event: ServerRequestEvent) => void;
    },
  ) {}

  /** Asks the client of `delivery`; resolves to what the upstream is to be told. */
  ask(
    server: string,
    upstreamSession: string | undefined,
    message: UpstreamMessage,
    delivery: ClientDelivery,
  ): Promise<ServerRequestAnswer> {
    const started = performance.now();
    const method = message.method!;
    const event = (outcome: ServerRequestOutcome, detail?: string): void =>
      this.options.onEvent({
        server,
        method,
        outcome,
        client: delivery.client,
        durationMs: performance.now() - started,
        ...(detail !== undefined ? { detail } : {}),
      });
    if (!admits(delivery.capabilities, method, message.params)) {
      event('unsupported');
      return Promise.resolve({
        error: {
          code: CAPABILITY_MISSING,
          message: `${method}: the client did not declare the ${capabilityOf(method)}${method === 'elicitation/create' && message.params?.mode === 'url' ? '.url' : ''} capability`,
        },
      });
    }
    const timeoutMs = this.options.timeoutMs;
    const id = this.options.codec.seal(
      PURPOSE,
      { s: server, u: upstreamSession ?? null, i: message.id, d: delivery.session, m: method },
      timeoutMs + 60_000,
    );
    return new Promise<ServerRequestAnswer>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        void this.claim(id).then((won) => {
          if (!won) return resolve({ answered: true });
          event('timeout');
          delivery.send({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: id, reason: `no answer within ${timeoutMs} ms` },
          });
          resolve({
            error: {
              code: REQUEST_TIMEOUT,
              message: `Request timed out: the client did not answer ${method} within ${timeoutMs} ms`,
            },
          });
        });
      }, timeoutMs);
      timer.unref?.();
      this.pending.set(id, {
        resolve: (answer) => {
          event('error' in answer ? 'error' : 'answered');
          resolve(answer);
        },
        timer,
      });
      const { id: _upstreamId, jsonrpc: _v, ...rest } = message;
      if (!delivery.send({ ...rest, jsonrpc: '2.0', id })) {
        clearTimeout(timer);
        this.pending.delete(id);
        event('undeliverable');
        resolve({
          error: {
            code: -32603,
            message: `${method}: the client has no open stream to receive it (open the session's GET stream)`,
          },
        });
      }
    });
  }

  /** Whether `message` is a JSON-RPC response (a client answering a server-to-client request). */
  static isResponse(message: Record<string, unknown>): boolean {
    return !('method' in message) && ('result' in message || 'error' in message);
  }

  /**
   * A response a client sent on `session`: routed to the upstream request it answers. Throws a
   * `JsonRpcFault` for an id that is not ours for this session, or was answered already.
   */
  async answer(session: string, client: string, message: Record<string, unknown>): Promise<void> {
    const payload = this.options.codec.open(PURPOSE, message.id);
    const refuse = (why: string): never => {
      this.options.onEvent({
        server: typeof payload?.s === 'string' ? payload.s : '',
        method: typeof payload?.m === 'string' ? payload.m : 'response',
        outcome: 'refused',
        client,
        durationMs: 0,
        detail: why,
      });
      throw new JsonRpcFault(INVALID_REQUEST, `Response refused: ${why}`);
    };
    if (!payload || payload.d !== session)
      refuse('no request of this session has that id (unknown, expired or forged)');
    const answer = answerOf(message);
    if (!answer) refuse('a response needs a result object or an error with a code and a message');
    if (!(await this.claim(String(message.id)))) refuse('that request was answered already');
    const local = this.pending.get(String(message.id));
    if (local) {
      clearTimeout(local.timer);
      this.pending.delete(String(message.id));
      local.resolve(answer!);
      return;
    }
    // Asked on another instance (or before a reload): answer the upstream from here.
    const http = this.options.upstream(String(payload!.s));
    if (!http) refuse(`upstream "${String(payload!.s)}" is not configured here`);
    await http!.respond(
      typeof payload!.u === 'string' ? payload!.u : undefined,
      payload!.i as string | number,
      answer!,
    );
    this.options.onEvent({
      server: String(payload!.s),
      method: String(payload!.m),
      outcome: 'error' in answer! ? 'error' : 'answered',
      client,
      durationMs: 0,
    });
  }

  private claim(id: string): Promise<boolean> {
    const key = `answered:${createHash('sha256').update(id).digest('base64url')}`;
    return this.options.records.claimOnce(key, this.options.timeoutMs + 120_000).catch(() => true);
  }

  close(): void {
    for (const pending of this.pending.values()) {
      clearTimeout(pending.timer);
      pending.resolve({ error: { code: -32603, message: 'The gateway is shutting down' } });
    }
    this.pending.clear();
  }
}

function answerOf(message: Record<string, unknown>): ServerRequestAnswer | undefined {
  if ('result' in message && isRecord(message.result)) return { result: message.result };
  const error = message.error;
  if (isRecord(error) && typeof error.code === 'number' && typeof error.message === 'string')
    return {
      error: {
        code: error.code,
        message: error.message,
        ...(error.data !== undefined ? { data: error.data } : {}),
      },
    };
  return undefined;
}
