import type { ToolwireConfig } from '@toolwire/config';
import {
  MemoryBreakerStateStore,
  type BreakerListener,
  type BreakerSnapshot,
  type BreakerStateMember,
  type BreakerStateStore,
} from '../breaker-store.js';
import { MemoryRateLimiter, type RateLimiter } from '../rate-limiter.js';
import { ResultCache, type ResultCacheStore } from '../result-cache.js';
import type * as RedisStores from '../redis/index.js';
import type { CallToolResult } from '../tool-source.js';

type RedisModule = typeof RedisStores;

interface Readiness {
  ready?(timeoutMs?: number): Promise<void>;
}

export interface StoresOptions {
  config: ToolwireConfig;
  /** Whether results are cached at all (some tool is cacheable). */
  caching: boolean;
  rateLimiter?: RateLimiter;
  resultCache?: ResultCacheStore;
  breakerState?: BreakerStateStore;
}

/**
 * Where a forwarder keeps what it may share with other instances: rate-limit buckets, cached
 * results, circuit-breaker transitions. The stores passed in are used as they are (and not
 * closed); the others are made here, in Redis when `config.redis` is set, else in memory.
 *
 * The Redis stores come from `@toolwire/forwarder/redis`, imported on first need: a forwarder
 * without `redis` never loads a Redis client. Until the import is done (a tick or two), the stores
 * answer from memory, as the Redis stores themselves do while Redis is not connected.
 */
export class Stores {
  readonly rateLimiter: RateLimiter;
  readonly cache: ResultCacheStore | undefined;
  readonly breakerStore: BreakerStateStore;
  private readonly owned: Array<{ close?(): Promise<void> }> = [];
  private readonly loading: Promise<unknown>;

  constructor(options: StoresOptions) {
    const { config } = options;
    const redis = config.redis;
    const module: Promise<RedisModule> | undefined = redis
      ? import('../redis/index.js')
      : undefined;
    this.loading = module ?? Promise.resolve();
    const sizes = {
      ttlMs: (config.cache?.ttlSeconds ?? 60) * 1000,
      maxEntries: config.cache?.maxEntries ?? 1000,
    };
    this.rateLimiter =
      options.rateLimiter ??
      this.own(
        module
          ? new DeferredRateLimiter(module.then((m) => new m.RedisRateLimiter(redis!)))
          : new MemoryRateLimiter(),
      );
    this.cache =
      options.resultCache ??
      (options.caching
        ? this.own(
            module
              ? new DeferredResultCache(
                  new ResultCache(sizes),
                  module.then((m) => new m.RedisResultCache(redis!, sizes)),
                )
              : new ResultCache(sizes),
          )
        : undefined);
    this.breakerStore =
      options.breakerState ??
      this.own(
        module
          ? new DeferredBreakerStore(module.then((m) => new m.RedisBreakerStateStore(redis!)))
          : new MemoryBreakerStateStore(),
      );
  }

  private own<T extends object>(store: T): T {
    this.owned.push(store as { close?(): Promise<void> });
    return store;
  }

  /** The result store in use now (a Redis store once it is loaded). */
  get currentCache(): ResultCacheStore | undefined {
    return this.cache instanceof DeferredResultCache ? this.cache.current : this.cache;
  }

  /** Waits for the stores that connect somewhere (the Redis ones); see `Forwarder.ready`. */
  async ready(timeoutMs = 5000): Promise<void> {
    await this.loading;
    const stores = [this.rateLimiter, this.cache, this.breakerStore] as Array<
      Readiness | undefined
    >;
    await Promise.all(stores.map((store) => store?.ready?.(timeoutMs)));
  }

  async close(): Promise<void> {
    await Promise.all(this.owned.map((store) => store.close?.()));
  }
}

/** Answers from `initial` until `later` is made, then from it. */
class Deferred<T extends { close?(): Promise<void> } & Readiness> {
  current: T;
  private closed = false;
  private readonly made: Promise<void>;

  constructor(
    initial: T,
    later: Promise<T>,
    private readonly onSwitch: (next: T) => void = () => {},
  ) {
    this.current = initial;
    this.made = later.then((next) => {
      if (this.closed) return void next.close?.();
      const previous = this.current;
      this.current = next;
      this.onSwitch(next);
      void previous.close?.();
    });
  }

  async ready(timeoutMs?: number): Promise<void> {
    await this.made;
    await this.current.ready?.(timeoutMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.made.catch(() => undefined);
    await this.current.close?.();
  }
}

class DeferredRateLimiter extends Deferred<RateLimiter & Readiness> implements RateLimiter {
  constructor(later: Promise<RateLimiter & Readiness>) {
    super(new MemoryRateLimiter(), later);
  }

  consume(key: string, perMinute: number, now?: number): number | Promise<number> {
    return this.current.consume(key, perMinute, now);
  }
}

class DeferredResultCache
  extends Deferred<ResultCacheStore & Readiness>
  implements ResultCacheStore
{
  /** Upstreams invalidated before the shared store was made: it hears of them once it is. */
  private readonly pending = new Set<string>();

  constructor(initial: ResultCache, later: Promise<ResultCacheStore & Readiness>) {
    super(initial, later, (next) => {
      for (const server of this.pending) void next.invalidateServer(server);
      this.pending.clear();
    });
  }

  get(key: string, server: string) {
    return this.current.get(key, server);
  }

  set(key: string, server: string, result: CallToolResult, generation?: number): void {
    this.current.set(key, server, result, generation);
  }

  generation(server: string): number {
    return this.current.generation(server);
  }

  invalidateServer(server: string): unknown {
    if (this.current instanceof ResultCache) this.pending.add(server);
    return this.current.invalidateServer(server);
  }

  get size(): number {
    return this.current.size;
  }
}

class DeferredBreakerStore
  extends Deferred<BreakerStateStore & Readiness>
  implements BreakerStateStore
{
  private readonly members = new Set<{
    listener: BreakerListener;
    inner: BreakerStateMember;
    /** What this member published before the shared store was made, replayed there. */
    published: Map<string, BreakerSnapshot>;
  }>();

  constructor(later: Promise<BreakerStateStore & Readiness>) {
    super(new MemoryBreakerStateStore(), later, (next) => {
      for (const member of this.members) {
        member.inner.leave();
        member.inner = next.join(member.listener);
        for (const [server, snapshot] of member.published) member.inner.publish(server, snapshot);
        member.published.clear();
      }
    });
  }

  join(listener: BreakerListener): BreakerStateMember {
    const member = { listener, inner: this.current.join(listener), published: new Map() };
    this.members.add(member);
    const early = this.current;
    return {
      publish: (server, snapshot) => {
        if (this.current === early) member.published.set(server, snapshot);
        member.inner.publish(server, snapshot);
      },
      leave: () => {
        this.members.delete(member);
        member.inner.leave();
      },
    };
  }
}
