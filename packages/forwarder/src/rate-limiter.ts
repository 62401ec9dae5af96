import { Redis } from 'ioredis';

/**
 * Counts calls against a per-minute limit. `consume` answers 0 when the call may go ahead,
 * otherwise the milliseconds until it would be allowed.
 */
export interface RateLimiter {
  consume(key: string, perMinute: number): number | Promise<number>;
  close(): Promise<void>;
}

interface Bucket {
  tokens: number;
  updated: number;
}

/**
 * Token buckets in process memory: capacity = the per-minute limit, refilled continuously.
 * Idle buckets are swept so memory stays bounded by the number of active keys.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweep = 0;

  consume(key: string, perMinute: number, now = Date.now()): number {
    const ratePerMs = perMinute / 60_000;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: perMinute, updated: now };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.updated) * ratePerMs);
      bucket.updated = now;
    }
    if (now - this.lastSweep > 60_000) this.sweep(now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerMs));
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    // A bucket untouched for a minute is full again: forgetting it changes nothing.
    for (const [key, bucket] of this.buckets) {
      if (now - bucket.updated >= 60_000) this.buckets.delete(key);
    }
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }
}

// Sliding-window counter over two fixed one-minute windows, atomic in Redis. Returns the wait in ms.
const SLIDING_WINDOW = `
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = 60000
local current = math.floor(now / window)
local ckey = KEYS[1] .. ':' .. current
local pkey = KEYS[1] .. ':' .. (current - 1)
local prev = tonumber(redis.call('GET', pkey) or '0')
local cur = tonumber(redis.call('GET', ckey) or '0')
local elapsed = (now % window) / window
local weighted = prev * (1 - elapsed) + cur
if weighted + 1 > limit then
  local wait = window - (now % window)
  if prev > 0 then
    local needed = (weighted + 1 - limit) / prev
    wait = math.min(wait, math.ceil(needed * window))
  end
  if wait < 1 then wait = 1 end
  return wait
end
redis.call('INCR', ckey)
redis.call('PEXPIRE', ckey, window * 2)
return 0
`;

/**
 * Rate limits shared by every forwarder instance that points at the same Redis. While Redis is
 * unreachable each instance falls back to its own in-memory buckets (limits stay enforced, per
 * instance) rather than refusing every call; `lastError` says why.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly fallback = new MemoryRateLimiter();
  lastError: Error | undefined;

  constructor(url: string, options: { prefix?: string } = {}) {
    // No offline queue: while disconnected a command fails at once and the fallback answers.
    this.redis = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: null,
      enableOfflineQueue: false,
      connectTimeout: 2000,
    });
    this.redis.on('error', (error: Error) => {
      this.lastError = error;
    });
    this.redis.connect().catch((error: Error) => {
      this.lastError = error;
    });
    this.redis.defineCommand('toolwireRateLimit', { numberOfKeys: 1, lua: SLIDING_WINDOW });
    this.prefix = options.prefix ?? 'toolwire:rl:';
  }

  async consume(key: string, perMinute: number): Promise<number> {
    if (this.redis.status !== 'ready') return this.fallback.consume(key, perMinute);
    try {
      const run = (
        this.redis as unknown as {
          toolwireRateLimit(key: string, now: number, limit: number): Promise<number>;
        }
      ).toolwireRateLimit;
      return Number(await run.call(this.redis, this.prefix + key, Date.now(), perMinute));
    } catch (error) {
      this.lastError = error as Error;
      return this.fallback.consume(key, perMinute);
    }
  }

  /** Resolves once connected (calls before that are counted in memory). */
  ready(timeoutMs = 5000): Promise<void> {
    if (this.redis.status === 'ready') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(this.lastError ?? new Error('Redis did not become ready')),
        timeoutMs,
      );
      this.redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async close(): Promise<void> {
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }
}
