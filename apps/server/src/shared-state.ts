import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  ResultCache,
  type AuthToken,
  type CallToolResult,
  type Forwarder,
} from '@toolwire/forwarder';
import type { Logger } from './logger.js';
import { SESSION_MAX_AGE_MS } from './session-codec.js';

/**
 * State that several gateway instances must agree on. In memory for one instance; in Redis when
 * `redis` is configured: the legacy-session secret and revocations, result-cache entries and
 * circuit-breaker state (rate limits are shared by the forwarder's own Redis limiter).
 */
export interface SharedState {
  readonly kind: 'memory' | 'redis';
  /** The secret that signs legacy session ids (the same on every instance). */
  sessionSecret(): Promise<Buffer>;
  revokeSession(id: string): Promise<void>;
  isRevoked(id: string): Promise<boolean>;
  /** Mirrors this forwarder's result cache and breakers into the shared store; returns the undo. */
  attach(forwarder: Forwarder, servers: readonly string[]): () => void;
  /** Before a call: copies a shared cache entry for it into the local cache, if there is one. */
  prefetch(
    forwarder: Forwarder,
    name: string,
    args: unknown,
    token: AuthToken | undefined,
  ): Promise<void>;
  /** Tells the other instances that a 2025-era request of a session is cancelled. */
  publishCancel(sessionId: string, requestId: string | number): void;
  /** Called with cancellations published by other instances. */
  onCancel(listener: (sessionId: string, requestId: string | number) => void): void;
  close(): Promise<void>;
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

export function createMemoryState(): SharedState {
  const secret = process.env.TOOLWIRE_SESSION_SECRET
    ? Buffer.from(process.env.TOOLWIRE_SESSION_SECRET)
    : randomBytes(32);
  const revoked = new Map<string, number>();
  return {
    kind: 'memory',
    sessionSecret: () => Promise.resolve(secret),
    revokeSession(id) {
      const now = Date.now();
      for (const [key, at] of revoked) if (now - at > SESSION_MAX_AGE_MS) revoked.delete(key);
      revoked.set(digest(id), now);
      return Promise.resolve();
    },
    isRevoked: (id) => Promise.resolve(revoked.has(digest(id))),
    attach: () => () => {},
    prefetch: () => Promise.resolve(),
    // One instance: the request is running here or not at all.
    publishCancel: () => {},
    onCancel: () => {},
    close: () => Promise.resolve(),
  };
}

interface BreakerLike {
  state: 'closed' | 'open' | 'half-open';
  onStateChange?: (state: 'closed' | 'open' | 'half-open') => void;
  success(): void;
}

const PREFIX = 'toolwire:';
const REDIS_TIMEOUT_MS = 500;

function withTimeout<T>(promise: Promise<T>, ms = REDIS_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function createRedisState(url: string, logger: Logger): SharedState {
  const options = { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false };
  const redis = new Redis(url, options);
  const subscriber = new Redis(url, options);
  const instance = randomBytes(6).toString('hex');
  const attached = new Set<{ forwarder: Forwarder; servers: readonly string[] }>();
  let applying = false;
  for (const client of [redis, subscriber]) {
    client.on('error', (error: Error) => logger.warn('redis error', { error: error.message }));
  }

  function breakerOf(forwarder: Forwarder, server: string): BreakerLike {
    return forwarder.pipeline.breaker(server) as unknown as BreakerLike;
  }

  // A breaker that opened elsewhere opens here too (and closes when it closes there).
  function applyBreaker(server: string, state: string, openedAt: number): void {
    applying = true;
    try {
      for (const { forwarder, servers } of attached) {
        if (!servers.includes(server)) continue;
        const breaker = breakerOf(forwarder, server);
        if (state === 'open' && breaker.state !== 'open') {
          const internals = breaker as unknown as { openedAt: number; failures: number };
          internals.openedAt = openedAt;
          internals.failures = Number.MAX_SAFE_INTEGER;
          breaker.state = 'open';
          breaker.onStateChange?.('open');
        } else if (state === 'closed' && breaker.state !== 'closed') {
          breaker.success();
        }
      }
    } finally {
      applying = false;
    }
  }

  const cancelListeners = new Set<(sessionId: string, requestId: string | number) => void>();
  void subscriber
    .subscribe(`${PREFIX}breaker`, `${PREFIX}cancel`)
    .catch((error: Error) => logger.warn('redis subscribe failed', { error: error.message }));
  subscriber.on('message', (channel: string, text: string) => {
    if (channel === `${PREFIX}cancel`) {
      try {
        const message = JSON.parse(text) as {
          from: string;
          session: string;
          request: string | number;
        };
        if (message.from === instance) return;
        for (const listener of cancelListeners) listener(message.session, message.request);
      } catch (error) {
        logger.warn('bad cancel message', { error: (error as Error).message });
      }
      return;
    }
    try {
      const message = JSON.parse(text) as {
        from: string;
        server: string;
        state: string;
        openedAt: number;
      };
      if (message.from !== instance) applyBreaker(message.server, message.state, message.openedAt);
    } catch (error) {
      logger.warn('bad breaker message', { error: (error as Error).message });
    }
  });

  function cacheKey(server: string, key: string): string {
    return `${PREFIX}cache:${server}:${digest(key)}`;
  }

  return {
    kind: 'redis',
    async sessionSecret() {
      if (process.env.TOOLWIRE_SESSION_SECRET)
        return Buffer.from(process.env.TOOLWIRE_SESSION_SECRET);
      let stored: string | null;
      try {
        await withTimeout(
          redis.set(`${PREFIX}session-secret`, randomBytes(32).toString('base64'), 'NX'),
          5000,
        );
        stored = await withTimeout(redis.get(`${PREFIX}session-secret`), 5000);
      } catch (error) {
        throw new Error(`redis: ${url} does not answer (${(error as Error).message})`, {
          cause: error,
        });
      }
      if (!stored) throw new Error('redis: could not read the shared session secret');
      return Buffer.from(stored, 'base64');
    },
    async revokeSession(id) {
      await redis.set(`${PREFIX}revoked:${digest(id)}`, '1', 'PX', SESSION_MAX_AGE_MS);
    },
    async isRevoked(id) {
      try {
        return (await withTimeout(redis.exists(`${PREFIX}revoked:${digest(id)}`))) === 1;
      } catch (error) {
        // Session ids are signed; revocation is the only thing Redis adds. Keep serving.
        logger.warn('redis unavailable: session revocation not checked', {
          error: (error as Error).message,
        });
        return false;
      }
    },
    attach(forwarder, servers) {
      const entry = { forwarder, servers };
      attached.add(entry);
      const cache = forwarder.pipeline.cache;
      const ttlMs = (forwarder.pipeline.config.cache?.ttlSeconds ?? 60) * 1000;
      const originalSet = cache?.set.bind(cache);
      const originalInvalidate = cache?.invalidateServer.bind(cache);
      if (cache && originalSet && originalInvalidate) {
        cache.set = (key: string, server: string, result: CallToolResult) => {
          originalSet(key, server, result);
          redis
            .set(cacheKey(server, key), JSON.stringify(result), 'PX', ttlMs)
            .catch((error: Error) =>
              logger.warn('redis cache write failed', { error: error.message }),
            );
        };
        cache.invalidateServer = (server: string) => {
          const removed = originalInvalidate(server);
          const stream = redis.scanStream({ match: `${PREFIX}cache:${server}:*`, count: 200 });
          stream.on('data', (keys: string[]) => {
            if (keys.length > 0) redis.del(...keys).catch(() => {});
          });
          stream.on('error', (error: Error) =>
            logger.warn('redis cache invalidation failed', { error: error.message }),
          );
          return removed;
        };
      }
      const restore: Array<() => void> = [];
      for (const server of servers) {
        const breaker = breakerOf(forwarder, server);
        const original = breaker.onStateChange;
        breaker.onStateChange = (state) => {
          original?.(state);
          if (applying || state === 'half-open') return;
          const openedAt = Date.now();
          const message = JSON.stringify({ from: instance, server, state, openedAt });
          void redis.publish(`${PREFIX}breaker`, message).catch(() => {});
          void redis
            .hset(`${PREFIX}breakers`, server, JSON.stringify({ state, openedAt }))
            .catch(() => {});
        };
        restore.push(() => {
          breaker.onStateChange = original;
        });
      }
      // A new instance starts from the breaker states the others recorded.
      void redis
        .hgetall(`${PREFIX}breakers`)
        .then((states) => {
          for (const [server, text] of Object.entries(states)) {
            const { state, openedAt } = JSON.parse(text) as { state: string; openedAt: number };
            if (state === 'open') applyBreaker(server, state, openedAt);
          }
        })
        .catch((error: Error) =>
          logger.warn('redis breaker read failed', { error: error.message }),
        );
      return () => {
        attached.delete(entry);
        for (const undo of restore) undo();
        if (cache && originalSet && originalInvalidate) {
          cache.set = originalSet;
          cache.invalidateServer = originalInvalidate;
        }
      };
    },
    async prefetch(forwarder, name, args, token) {
      const cache = forwarder.pipeline.cache;
      const entry = forwarder.pipeline.tools().get(name);
      if (!cache || !entry?.cacheable) return;
      const key = ResultCache.key(token?.client ?? 'anonymous', name, args ?? {});
      if (cache.get(key) !== undefined) return;
      let text: string | null;
      try {
        text = await withTimeout(redis.get(cacheKey(entry.server, key)));
      } catch (error) {
        // The shared cache is an optimisation: without Redis the call simply goes upstream.
        logger.warn('redis unavailable: shared cache skipped', { error: (error as Error).message });
        return;
      }
      if (text === null) return;
      // Straight into the local LRU (the prototype's set), so it is not written back to Redis.
      ResultCache.prototype.set.call(cache, key, entry.server, JSON.parse(text) as CallToolResult);
    },
    publishCancel(sessionId, requestId) {
      const message = JSON.stringify({ from: instance, session: sessionId, request: requestId });
      redis
        .publish(`${PREFIX}cancel`, message)
        .catch((error: Error) =>
          logger.warn('redis cancel publish failed', { error: error.message }),
        );
    },
    onCancel(listener) {
      cancelListeners.add(listener);
    },
    async close() {
      attached.clear();
      cancelListeners.clear();
      await Promise.allSettled([redis.quit(), subscriber.quit()]);
      redis.disconnect();
      subscriber.disconnect();
    },
  };
}
