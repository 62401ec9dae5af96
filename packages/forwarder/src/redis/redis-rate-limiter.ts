import { Redis } from 'ioredis';
import { MemoryRateLimiter, type RateLimiter } from '../rate-limiter.js';

/** `gcraStep` in Lua: KEYS[1] holds `tat`, ARGV = now, perMinute. Returns the wait in ms. */
const GCRA_LUA = `
local now = tonumber(ARGV[1])
local interval = 60000 / tonumber(ARGV[2])
local stored = tonumber(redis.call('GET', KEYS[1]) or now)
local tat = math.max(stored, now) + interval
local allowAt = tat - 60000
if now < allowAt then
  return math.max(1, math.ceil(allowAt - now))
end
redis.call('SET', KEYS[1], string.format('%.17g', tat), 'PX', math.ceil(tat - now))
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
    // No offline queue: while disconnected a command fails at once and the fallback answers. A
    // command in flight when Redis dies would otherwise wait for it to come back (it is resent
    // after the reconnect), holding its call that long: it fails after 500 ms instead.
    this.redis = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: null,
      enableOfflineQueue: false,
      connectTimeout: 2000,
      commandTimeout: 500,
    });
    this.redis.on('error', (error: Error) => {
      this.lastError = error;
    });
    this.redis.connect().catch((error: Error) => {
      this.lastError = error;
    });
    this.redis.defineCommand('toolwireRateLimit', { numberOfKeys: 1, lua: GCRA_LUA });
    this.prefix = options.prefix ?? 'toolwire:rl:';
  }

  async consume(key: string, perMinute: number, now = Date.now()): Promise<number> {
    if (this.redis.status !== 'ready') return this.fallback.consume(key, perMinute, now);
    try {
      const run = (
        this.redis as unknown as {
          toolwireRateLimit(key: string, now: number, limit: number): Promise<number>;
        }
      ).toolwireRateLimit;
      return Number(await run.call(this.redis, this.prefix + key, now, perMinute));
    } catch (error) {
      this.lastError = error as Error;
      return this.fallback.consume(key, perMinute, now);
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
