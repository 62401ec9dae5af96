/**
 * Counts calls against a per-minute limit. `consume` answers 0 when the call may go ahead,
 * otherwise the milliseconds until it would be allowed. `now` is for tests (default `Date.now()`).
 */
export interface RateLimiter {
  consume(key: string, perMinute: number, now?: number): number | Promise<number>;
  close(): Promise<void>;
}

/**
 * The one rate-limit algorithm, for every store: GCRA, i.e. a token bucket whose capacity is the
 * per-minute limit, refilled continuously. The state of a key is one number, the theoretical
 * arrival time `tat` (ms): the bucket is full while `tat <= now`. Returns the wait (0 = allowed)
 * and the state to store when allowed. The Redis store runs the same steps in `GCRA_LUA` (`redis/redis-rate-limiter.ts`),
 * atomically; the same test cases run against both.
 */
function gcraStep(
  stored: number | undefined,
  perMinute: number,
  now: number,
): { wait: number; tat: number } {
  const interval = 60_000 / perMinute;
  const tat = Math.max(stored ?? now, now) + interval;
  const allowAt = tat - 60_000;
  if (now < allowAt) return { wait: Math.max(1, Math.ceil(allowAt - now)), tat: stored ?? now };
  return { wait: 0, tat };
}

/** GCRA state in process memory. Full buckets are swept, so memory follows the active keys. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly tats = new Map<string, number>();
  private lastSweep = 0;

  consume(key: string, perMinute: number, now = Date.now()): number {
    const { wait, tat } = gcraStep(this.tats.get(key), perMinute, now);
    if (wait === 0) this.tats.set(key, tat);
    if (now - this.lastSweep > 60_000) this.sweep(now);
    return wait;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    // A key whose tat has passed has a full bucket: forgetting it changes nothing.
    for (const [key, tat] of this.tats) if (tat <= now) this.tats.delete(key);
  }

  async close(): Promise<void> {
    this.tats.clear();
  }
}
