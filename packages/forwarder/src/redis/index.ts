// `@toolwire/forwarder/redis`: the stores that share a forwarder's state through Redis. Apart from
// the root so that only users of Redis load `ioredis` (an optional peer dependency).
export { RedisRateLimiter } from './redis-rate-limiter.js';
export { RedisResultCache, RedisBreakerStateStore } from './redis-stores.js';
export type { RedisStoreOptions } from './redis-stores.js';
export { createRedisPinStore } from './redis-pin-store.js';
export type { RedisPinStoreOptions } from './redis-pin-store.js';
export { createRedisUserTokenStore } from './redis-user-token-store.js';
