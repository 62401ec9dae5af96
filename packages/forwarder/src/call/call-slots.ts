import type { AuthToken, ToolwireConfig } from '@toolwire/config';
import {
  FairShareQueue,
  type FairShareGrant,
  type FairShareOptions,
  type FairShareSnapshot,
} from '@toolwire/schema';
import { callerLimitsOf } from '../caller-limits.js';
import { INTERNAL_ERROR, JsonRpcFault, RATE_LIMITED } from '../json-rpc.js';

/**
 * Each caller's share of the calls to upstreams: at most `limits.calls.concurrent` running and
 * `limits.calls.queued` waiting (one more is refused: a rate-limit `JsonRpcFault` with
 * `retryAfterMs`); a call that ends hands its slot to the caller's next one. One token flooding an
 * upstream waits behind its own calls; the others' go ahead.
 */
export class CallSlots {
  private readonly queue: FairShareQueue;

  constructor(config: ToolwireConfig, tokens: readonly AuthToken[]) {
    this.queue = new FairShareQueue({
      capacity: Number.POSITIVE_INFINITY,
      share: shareOf(config, tokens),
      busy: (refusal) =>
        new JsonRpcFault(
          RATE_LIMITED,
          `Call refused: rate limit of concurrent calls for client "${refusal.owner}" reached (${refusal.active} running, ${refusal.queued} waiting; policy.limits.calls); retry after ${refusal.retryAfterMs} ms`,
          { retryAfterMs: refusal.retryAfterMs, policy: 'policy.limits.calls' },
        ),
      aborted: (reason) =>
        new JsonRpcFault(
          INTERNAL_ERROR,
          reason === 'closed'
            ? 'The forwarder closed while the call waited for its turn'
            : 'Cancelled while waiting for its turn',
        ),
    });
  }

  /** A slot for one call of `client`, held until `release()`. */
  acquire(client: string, signal?: AbortSignal): Promise<FairShareGrant> {
    return this.queue.acquire(client, signal);
  }

  /** Running and waiting calls per client. */
  usage(): FairShareSnapshot {
    return this.queue.snapshot();
  }

  close(): void {
    this.queue.close();
  }
}

function shareOf(config: ToolwireConfig, tokens: readonly AuthToken[]): FairShareOptions {
  const everyone = callerLimitsOf(config, undefined).calls;
  const owners: Record<string, { maxActive: number; maxQueued: number }> = {};
  for (const token of tokens) {
    const { concurrent, queued } = callerLimitsOf(config, token).calls;
    owners[token.client] = { maxActive: concurrent, maxQueued: queued };
  }
  return { maxActive: everyone.concurrent, maxQueued: everyone.queued, owners };
}
