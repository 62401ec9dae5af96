import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type {
  BreakerListener,
  BreakerSnapshot,
  BreakerStateMember,
  BreakerStateStore,
} from '../breaker-store.js';
import { ResultCache, type ResultCacheStore } from '../result-cache.js';
import type { CallToolResult } from '../tool-source.js';

export interface RedisStoreOptions {
  /** Key and channel prefix (default `toolwire:`). */
  prefix?: string;
  /** A Redis command that takes longer fails and the store answers locally (default 500 ms). */
  commandTimeoutMs?: number;
}

function connect(url: string, commandTimeoutMs: number, onError: (error: Error) => void): Redis {
  // No offline queue: while disconnected a command fails at once and the store answers locally.
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: null,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    commandTimeout: commandTimeoutMs,
  });
  redis.on('error', onError);
  redis.connect().catch(onError);
  return redis;
}

function whenReady(clients: Redis[], timeoutMs: number, lastError: () => Error | undefined) {
  return Promise.all(
    clients.map(
      (client) =>
        new Promise<void>((resolve, reject) => {
          if (client.status === 'ready') return resolve();
          const timer = setTimeout(
            () => reject(lastError() ?? new Error('Redis did not become ready')),
            timeoutMs,
          );
          client.once('ready', () => {
            clearTimeout(timer);
            resolve();
          });
        }),
    ),
  ).then(() => {});
}

async function quit(client: Redis): Promise<void> {
  if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
  else client.disconnect();
}

// KEYS[1] the upstream's generation counter, KEYS[2] the entry key without its generation.
// Answers nil or { json, remaining ttl in ms } in one round trip.
const CACHE_GET = `
local gen = redis.call('GET', KEYS[1]) or '0'
local key = KEYS[2] .. ':' .. gen
local value = redis.call('GET', key)
if not value then return nil end
return { value, redis.call('PTTL', key) }
`;

// ARGV[1] the JSON, ARGV[2] the TTL in ms. Written under the current generation.
const CACHE_SET = `
local gen = redis.call('GET', KEYS[1]) or '0'
redis.call('SET', KEYS[2] .. ':' .. gen, ARGV[1], 'PX', ARGV[2])
return 1
`;

interface CacheCommands {
  toolwireCacheGet(gen: string, key: string): Promise<[string, number] | null>;
  toolwireCacheSet(gen: string, key: string, json: string, ttlMs: number): Promise<number>;
}

/**
 * A result cache shared by every forwarder pointing at the same Redis, in front of which sits the
 * in-memory `ResultCache`: a local hit costs no round trip; a local miss costs one (a script that
 * reads the entry and its remaining TTL), and a shared hit is copied locally with that remaining
 * TTL. `invalidateServer` bumps the upstream's generation in Redis (every shared entry of it is
 * gone at once, for every instance) and tells the other instances to drop their local copies.
 *
 * A local copy is right only while this instance hears every invalidation, so the store caches
 * nothing while either connection is down: reads go upstream, nothing is stored, and the copies
 * made before are dropped (a write on another instance could not reach them). Invalidations made
 * meanwhile are sent once Redis is back, before this instance reads shared entries again.
 * `lastError` says why the cache is bypassed.
 */
export class RedisResultCache implements ResultCacheStore {
  private readonly redis: Redis;
  private readonly subscriber: Redis;
  private readonly local: ResultCache;
  private readonly ttlMs: number;
  private readonly prefix: string;
  private readonly channel: string;
  private readonly instance = randomBytes(8).toString('hex');
  /** Subscribed to invalidations since the local copies were last dropped. */
  private listening = false;
  /** When caching may resume after Redis was away (0: it never was). */
  private resumeAt = 0;
  private readonly rejoinMs: number;
  private readonly whenListening = new Set<() => void>();
  /** Upstreams invalidated while Redis was unreachable, to invalidate there once it is back. */
  private readonly unsent = new Set<string>();
  lastError: Error | undefined;

  constructor(
    url: string,
    options: {
      ttlMs: number;
      maxEntries: number;
      /**
       * After Redis was away, caching resumes this long after subscribing again (default 3000 ms,
       * above the reconnect backoff's 2 s cap): every instance is back by then and has sent the
       * invalidations of the writes it made meanwhile.
       */
      rejoinMs?: number;
    } & RedisStoreOptions,
  ) {
    this.rejoinMs = options.rejoinMs ?? 3000;
    this.ttlMs = options.ttlMs;
    this.local = new ResultCache({ ttlMs: options.ttlMs, maxEntries: options.maxEntries });
    this.prefix = options.prefix ?? 'toolwire:';
    this.channel = `${this.prefix}cache-invalidate`;
    const onError = (error: Error): void => {
      this.lastError = error;
    };
    const timeout = options.commandTimeoutMs ?? 500;
    this.redis = connect(url, timeout, onError);
    this.redis.defineCommand('toolwireCacheGet', { numberOfKeys: 2, lua: CACHE_GET });
    this.redis.defineCommand('toolwireCacheSet', { numberOfKeys: 2, lua: CACHE_SET });
    this.subscriber = connect(url, timeout, onError);
    // Invalidations sent while the subscriber was away are lost: its copies go with it, and
    // caching resumes once it is subscribed again.
    this.subscriber.on('close', () => {
      if (this.listening) this.resumeAt = Number.POSITIVE_INFINITY;
      this.listening = false;
      this.local.clear();
    });
    this.subscriber.on('ready', () => {
      this.subscriber.subscribe(this.channel).then(() => {
        this.local.clear();
        this.listening = this.subscriber.status === 'ready';
        if (this.listening && this.resumeAt > 0) this.resumeAt = Date.now() + this.rejoinMs;
        if (!this.listening) return;
        for (const resolve of this.whenListening) resolve();
        this.whenListening.clear();
      }, onError);
    });
    this.redis.on('ready', () => void this.sendUnsent());
    this.subscriber.on('message', (channel: string, text: string) => {
      if (channel !== this.channel) return;
      try {
        const message = JSON.parse(text) as { from: string; server: string };
        if (message.from !== this.instance) this.local.invalidateServer(message.server);
      } catch (error) {
        this.lastError = new Error(`bad cache invalidation message: ${(error as Error).message}`);
      }
    });
  }

  private keys(key: string, server: string): [string, string] {
    const digest = createHash('sha256').update(key).digest('base64url');
    return [`${this.prefix}cache-gen:${server}`, `${this.prefix}cache:${server}:${digest}`];
  }

  private get commands(): CacheCommands {
    return this.redis as unknown as CacheCommands;
  }

  /**
   * Whether a copy made now would hear of every later invalidation, and no instance still holds
   * back one (a write made on an instance not back on Redis yet is invalidated when it is).
   */
  private get shared(): boolean {
    return (
      this.listening &&
      this.redis.status === 'ready' &&
      this.unsent.size === 0 &&
      (this.resumeAt === 0 || Date.now() >= this.resumeAt)
    );
  }

  get(
    key: string,
    server: string,
  ): CallToolResult | undefined | Promise<CallToolResult | undefined> {
    if (!this.shared) return undefined;
    return this.local.get(key) ?? this.fetch(key, server);
  }

  private async fetch(key: string, server: string): Promise<CallToolResult | undefined> {
    const [gen, entry] = this.keys(key, server);
    let answer: [string, number] | null;
    try {
      answer = await this.commands.toolwireCacheGet(gen, entry);
    } catch (error) {
      // The shared cache is an optimisation: without Redis the call simply goes upstream.
      this.lastError = error as Error;
      return undefined;
    }
    if (answer === null) return undefined;
    const [json, remaining] = answer;
    let result: CallToolResult;
    try {
      result = JSON.parse(json) as CallToolResult;
    } catch (error) {
      this.lastError = new Error(`bad shared cache entry: ${(error as Error).message}`);
      return undefined;
    }
    // PTTL is -1 without an expiry (never written so by us) and -2 when it just expired.
    if (remaining > 0) this.local.setWithTtl(key, server, result, Math.min(remaining, this.ttlMs));
    return result;
  }

  generation(server: string): number {
    return this.local.generation(server);
  }

  set(key: string, server: string, result: CallToolResult, generation?: number): void {
    if (generation !== undefined && generation !== this.local.generation(server)) return;
    if (!this.shared) return;
    this.local.set(key, server, result);
    const [gen, entry] = this.keys(key, server);
    this.commands
      .toolwireCacheSet(gen, entry, JSON.stringify(result), this.ttlMs)
      .catch((error: Error) => {
        this.lastError = error;
      });
  }

  /**
   * Settles once Redis has bumped the generation and published the notice (Redis writes it to
   * every subscriber before it answers), so a caller that waits for it before answering its
   * client has every instance's copies gone by the time that client can ask again.
   */
  async invalidateServer(server: string): Promise<void> {
    this.local.invalidateServer(server);
    if (this.redis.status !== 'ready') {
      this.unsent.add(server);
      this.lastError = new Error(
        `Redis unavailable: shared cache entries of "${server}" are invalidated once it is back`,
      );
      return;
    }
    await this.sendInvalidation(server);
  }

  private async sendInvalidation(server: string): Promise<void> {
    try {
      await this.redis
        .multi()
        .incr(`${this.prefix}cache-gen:${server}`)
        .publish(this.channel, JSON.stringify({ from: this.instance, server }))
        .exec();
      this.unsent.delete(server);
    } catch (error) {
      this.unsent.add(server);
      this.lastError = error as Error;
    }
  }

  private async sendUnsent(): Promise<void> {
    for (const server of [...this.unsent]) await this.sendInvalidation(server);
  }

  /** Milliseconds left before the local copy of `key` expires (0 when there is none). */
  remainingTtl(key: string): number {
    return this.local.remainingTtl(key);
  }

  /** Entries copied into this process. */
  get size(): number {
    return this.local.size;
  }

  /** Resolves once both connections are ready and invalidations are heard (before that nothing is cached). */
  async ready(timeoutMs = 5000): Promise<void> {
    await whenReady([this.redis, this.subscriber], timeoutMs, () => this.lastError);
    if (this.listening) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.whenListening.delete(done);
        reject(this.lastError ?? new Error('Redis: not subscribed to cache invalidations'));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.whenListening.add(done);
    });
  }

  async close(): Promise<void> {
    this.local.clear();
    await Promise.all([quit(this.redis), quit(this.subscriber)]);
  }
}

/**
 * Circuit-breaker state shared by every forwarder pointing at the same Redis: transitions are
 * recorded in a hash (so a new instance starts from the breakers open now) and published on a
 * channel (so running instances follow at once). Members in one process hear each other directly.
 */
export class RedisBreakerStateStore implements BreakerStateStore {
  private readonly redis: Redis;
  private readonly subscriber: Redis;
  private readonly members = new Set<{ listener: BreakerListener }>();
  private readonly recorded = new Map<string, BreakerSnapshot>();
  private readonly hash: string;
  private readonly channel: string;
  private readonly instance = randomBytes(8).toString('hex');
  lastError: Error | undefined;

  constructor(url: string, options: RedisStoreOptions = {}) {
    const prefix = options.prefix ?? 'toolwire:';
    this.hash = `${prefix}breakers`;
    this.channel = `${prefix}breaker`;
    const onError = (error: Error): void => {
      this.lastError = error;
    };
    const timeout = options.commandTimeoutMs ?? 500;
    this.redis = connect(url, timeout, onError);
    this.subscriber = connect(url, timeout, onError);
    this.subscriber.once('ready', () => {
      this.subscriber.subscribe(this.channel).catch(onError);
    });
    this.subscriber.on('message', (channel: string, text: string) => {
      if (channel !== this.channel) return;
      let message: { from: string; server: string } & BreakerSnapshot;
      try {
        message = JSON.parse(text) as typeof message;
      } catch (error) {
        this.lastError = new Error(`bad breaker message: ${(error as Error).message}`);
        return;
      }
      if (message.from === this.instance) return;
      const snapshot = { state: message.state, openedAt: message.openedAt };
      this.recorded.set(message.server, snapshot);
      for (const member of this.members) member.listener(message.server, snapshot);
    });
    // A new instance starts from the breaker states the others recorded.
    this.redis.once('ready', () => {
      this.redis
        .hgetall(this.hash)
        .then((states) => {
          for (const [server, text] of Object.entries(states)) {
            const snapshot = JSON.parse(text) as BreakerSnapshot;
            if (snapshot.state !== 'open') continue;
            this.recorded.set(server, snapshot);
            for (const member of this.members) member.listener(server, snapshot);
          }
        })
        .catch(onError);
    });
  }

  join(listener: BreakerListener): BreakerStateMember {
    const member = { listener };
    this.members.add(member);
    const open = [...this.recorded].filter(([, snapshot]) => snapshot.state === 'open');
    if (open.length > 0) {
      queueMicrotask(() => {
        if (!this.members.has(member)) return;
        for (const [server, snapshot] of open) listener(server, snapshot);
      });
    }
    return {
      publish: (server, snapshot) => {
        this.recorded.set(server, snapshot);
        for (const other of this.members) if (other !== member) other.listener(server, snapshot);
        if (this.redis.status !== 'ready') {
          this.lastError = new Error(`Redis unavailable: breaker state of "${server}" not shared`);
          return;
        }
        this.redis
          .multi()
          .hset(this.hash, server, JSON.stringify(snapshot))
          .publish(this.channel, JSON.stringify({ from: this.instance, server, ...snapshot }))
          .exec()
          .catch((error: Error) => {
            this.lastError = error;
          });
      },
      leave: () => {
        this.members.delete(member);
      },
    };
  }

  /** Resolves once both connections are ready (before that, state is shared in-process only). */
  ready(timeoutMs = 5000): Promise<void> {
    return whenReady([this.redis, this.subscriber], timeoutMs, () => this.lastError);
  }

  async close(): Promise<void> {
    this.members.clear();
    await Promise.all([quit(this.redis), quit(this.subscriber)]);
  }
}
