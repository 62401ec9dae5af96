import type { AuthToken } from '@toolwire/config';
import type { UpstreamMessage } from '../http-upstream.js';

/** Who is calling and how to reach them while the call runs. */
export interface CallContext {
  /** The authenticated token, when `auth` is configured. */
  token?: AuthToken;
  signal?: AbortSignal;
  /** The downstream request's `_meta` (progressToken, traceparent, …). */
  meta?: Record<string, unknown>;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Other notifications from the upstream (log messages) for the downstream client. */
  onNotification?: (message: UpstreamMessage) => void;
  /**
   * Further `tools/call` params passed to the upstream unchanged: the 2026-07-28 multi-round-trip
   * `inputResponses` and `requestState` of a retried call.
   */
  extraParams?: Record<string, unknown>;
  /** The caller speaks 2026-07-28 and can answer an `input_required` result. */
  modern?: boolean;
  /** The client's network address (the audit line names it). */
  address?: string;
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
