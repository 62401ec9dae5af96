import { Redis } from 'ioredis';
import type { UserTokenStore } from '../auth/user-token-store.js';

/**
 * Users' upstream tokens shared by a fleet: sealed entries (see `UserTokenSealer`) in one Redis
 * hash, so a user who authorized an upstream through one instance is served by every instance.
 */
export function createRedisUserTokenStore(
  url: string,
  options: { prefix?: string } = {},
): UserTokenStore {
  const key = `${options.prefix ?? 'toolwire:'}user-tokens`;
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    connectTimeout: 2000,
    // A Redis that stops answering fails the read instead of holding a call.
    commandTimeout: 2000,
  });
  redis.on('error', () => {});
  const connected = async (): Promise<Redis> => {
    if (redis.status === 'wait') await redis.connect();
    return redis;
  };
  return {
    async get(field) {
      return (await (await connected()).hget(key, field)) ?? undefined;
    },
    async set(field, sealed) {
      await (await connected()).hset(key, field, sealed);
    },
    async delete(field) {
      await (await connected()).hdel(key, field);
    },
    async close() {
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}
