import type { AuthToken } from '@toolwire/config';
import type { HttpUpstream, ServerRequestAnswer, UpstreamMessage } from '../http-upstream.js';

/**
 * The client a call works for, as the upstream hop needs it: the upstream session of its own
 * (with its capabilities), where server-to-client requests go, and what a created task becomes.
 * Absent for a client that declared nothing to bridge: its calls take the shared session.
 */
export interface ClientChannel {
  /** The client capabilities an upstream sees (a 2026-07-28 upstream, per request). */
  readonly capabilities: Record<string, unknown>;
  /** The upstream session this client's calls to `server` use (`undefined`: none needed). */
  sessionFor(server: string, http: HttpUpstream): Promise<string | undefined>;
  /** The upstream forgot that session (it restarted): the next call opens another. */
  forget(server: string, session: string): Promise<void>;
  /** A server-to-client request the upstream sent while working for this client. */
  ask(
    server: string,
    session: string | undefined,
    message: UpstreamMessage,
  ): Promise<ServerRequestAnswer>;
  /**
   * Sends the call for a client of another revision than the upstream's (a 2026-07-28 client of a
   * 2025-era upstream): the upstream's questions become `input_required` results and the client's
   * retries carry the answers. Absent: `send` as it is.
   */
  around?(
    server: string,
    http: HttpUpstream,
    extra: Record<string, unknown> | undefined,
    send: (options: {
      signal?: AbortSignal;
      onRequest?: (message: UpstreamMessage) => Promise<ServerRequestAnswer>;
    }) => Promise<unknown>,
  ): Promise<unknown>;
  /** A call was answered with a task: recorded as this client's, under the id it will see. */
  taskCreated(
    server: string,
    session: string | undefined,
    result: Record<string, unknown>,
    tool: string,
  ): Promise<Record<string, unknown>>;
}

/** Who is calling and how to reach them while the call runs. */
export interface CallContext {
  /** The authenticated token, when `auth` is configured. */
  token?: AuthToken;
  signal?: AbortSignal;
  /** The downstream request's `_meta` (progressToken, traceparent, …). */
  meta?: Record<string, unknown>;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Other notifications from the upstream (log messages, task status) for the downstream client. */
  onNotification?: (message: UpstreamMessage, server?: string) => void;
  /**
   * Further `tools/call` params passed to the upstream unchanged: the 2026-07-28 multi-round-trip
   * `inputResponses` and `requestState` of a retried call.
   */
  extraParams?: Record<string, unknown>;
  /** The caller speaks 2026-07-28 and can answer an `input_required` result. */
  modern?: boolean;
  /** The client's network address (the audit line names it). */
  address?: string;
  /** The client whose upstream session and server-to-client requests the call uses. */
  client?: ClientChannel;
}

/** Who a call is recorded for: the client name of its token and its network address. */
export interface Caller {
  token: AuthToken | undefined;
  /** The token's client name, `anonymous` without auth. */
  client: string;
  address?: string;
}

export function callerOf(context: Pick<CallContext, 'token' | 'address'>): Caller {
  return {
    token: context.token,
    client: context.token?.client ?? 'anonymous',
    ...(context.address !== undefined ? { address: context.address } : {}),
  };
}
