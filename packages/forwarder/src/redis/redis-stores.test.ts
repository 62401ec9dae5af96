import { freePort, HAS_REDIS_SERVER, startRedisServer } from '../../test/helpers/redis-server.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BreakerSnapshot } from '../breaker-store.js';
import { createForwarder } from '../forwarder.js';
import { UpstreamError } from '../http-upstream.js';
import { RedisBreakerStateStore, RedisResultCache } from './redis-stores.js';
import { ResultCache } from '../result-cache.js';
import type { CallToolResult, ToolSource } from '../tool-source.js';

/** Polls `probe` until it gives a value (the stores write to Redis without waiting). */
function eventually<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await probe();
      if (value === undefined) throw new Error(`timed out waiting for ${what}`);
      return value;
    },
    { timeout: 4_000, interval: 10 },
  );
}

/** One 2026-07-28 tools/call over HTTP, as a client behind a load balancer sends it. */
async function callOver(url: string, name: string, args: unknown): Promise<unknown> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (!body.result) throw new Error(`call ${name} failed: ${body.error?.message}`);
  return body.result;
}

/** A redis-server of its own on `port`, answering once it accepts commands. */
const startRedisChild = async (port: number) => (await startRedisServer(port)).child;

const result = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });

/** One upstream `fx` with a read-only tool; `failing` makes calls fail as a lost connection. */
function stubSource(): ToolSource & { calls: number; failing: boolean } {
  const source: ToolSource & { calls: number; failing: boolean } = {
    calls: 0,
    failing: false,
    listTools: () => [
      {
        name: 'fx__read',
        originalName: 'read',
        source: 'fx',
        inputSchema: { type: 'object' as const, properties: { n: { type: 'number' as const } } },
        annotations: { readOnlyHint: true },
      },
      {
        name: 'fx__write',
        originalName: 'write',
        source: 'fx',
        inputSchema: { type: 'object' as const },
      },
    ],
    servers: () => [{ name: 'fx', status: 'ok' as const, tools: 1 }],
    resolve: (name: string) =>
      name.startsWith('fx__') ? { source: 'fx', originalName: name.slice(4) } : undefined,
    onToolsChanged: () => () => undefined,
    async callTool(name: string, args: unknown) {
      if (name === 'fx__write') return result('written');
      source.calls++;
      if (source.failing) throw new UpstreamError('fx', 'connection', 'fx: connection refused');
      return result(`read ${JSON.stringify(args)}`);
    },
  };
  return source;
}

describe.skipIf(!HAS_REDIS_SERVER)('Redis stores (needs the redis-server Debian package)', () => {
  let redis: { url: string; stop(): void };
  let url: string;

  beforeAll(async () => {
    redis = await startRedisServer();
    url = redis.url;
  });

  afterAll(() => {
    redis?.stop();
  });

  describe('RedisResultCache', () => {
    it('serves an entry written by one instance from another, keeping its remaining TTL', async () => {
      const prefix = 'test-ttl:';
      const a = new RedisResultCache(url, { ttlMs: 2_000, maxEntries: 10, prefix });
      const b = new RedisResultCache(url, { ttlMs: 600_000, maxEntries: 10, prefix });
      await Promise.all([a.ready(), b.ready()]);
      try {
        const key = ResultCache.key('alice', 'fx__read', { n: 1 });
        const miss = b.get(key, 'fx');
        expect(miss).toBeInstanceOf(Promise);
        expect(await miss).toBeUndefined();
        a.set(key, 'fx', result('one'));
        expect(a.get(key, 'fx')).toEqual(result('one'));
        expect(await eventually(async () => b.get(key, 'fx'), 'the entry on B')).toEqual(
          result('one'),
        );
        // Copied locally: the next read answers synchronously, with A's TTL left, not a fresh one.
        expect(b.get(key, 'fx')).toEqual(result('one'));
        expect(b.remainingTtl(key)).toBeGreaterThan(0);
        expect(b.remainingTtl(key)).toBeLessThanOrEqual(2_000);
        expect(b.size).toBe(1);
        // Another client's key is another entry.
        expect(await b.get(ResultCache.key('bob', 'fx__read', { n: 1 }), 'fx')).toBeUndefined();
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('invalidates an upstream for every instance: shared entries and local copies', async () => {
      const prefix = 'test-gen:';
      const a = new RedisResultCache(url, { ttlMs: 60_000, maxEntries: 10, prefix });
      const b = new RedisResultCache(url, { ttlMs: 60_000, maxEntries: 10, prefix });
      await Promise.all([a.ready(), b.ready()]);
      try {
        const fx = ResultCache.key('alice', 'fx__read', {});
        const other = ResultCache.key('alice', 'other__read', {});
        a.set(fx, 'fx', result('fx'));
        a.set(other, 'other', result('other'));
        await eventually(async () => b.get(fx, 'fx'), 'the fx entry on B');
        await eventually(async () => b.get(other, 'other'), 'the other entry on B');
        expect(b.get(fx, 'fx')).toEqual(result('fx'));

        a.invalidateServer('fx');
        expect(a.get(fx, 'fx')).toBeInstanceOf(Promise);
        // B drops its local copy when A's notice arrives, and Redis no longer has the entry.
        await eventually(
          async () => (b.get(fx, 'fx') instanceof Promise ? true : undefined),
          'B to drop its copy',
        );
        expect(await b.get(fx, 'fx')).toBeUndefined();
        expect(await a.get(fx, 'fx')).toBeUndefined();
        // The other upstream's entries stay.
        expect(b.get(other, 'other')).toEqual(result('other'));
        // Entries written after the invalidation are shared again.
        b.set(fx, 'fx', result('fx again'));
        expect(await eventually(async () => a.get(fx, 'fx'), 'the new entry on A')).toEqual(
          result('fx again'),
        );
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('bypasses the cache while Redis is unreachable: a write elsewhere cannot reach its copies', async () => {
      const cache = new RedisResultCache(`redis://127.0.0.1:${await freePort()}`, {
        ttlMs: 60_000,
        maxEntries: 10,
      });
      try {
        await expect(cache.ready(500)).rejects.toThrow(/ECONNREFUSED|ready/);
        const key = ResultCache.key('alice', 'fx__read', {});
        expect(cache.get(key, 'fx')).toBeUndefined();
        cache.set(key, 'fx', result('local'));
        expect(cache.get(key, 'fx')).toBeUndefined();
        expect(cache.size).toBe(0);
        cache.invalidateServer('fx');
        expect(cache.lastError?.message).toMatch(/once it is back|ECONNREFUSED/);
      } finally {
        await cache.close();
      }
    });

    it('serves no copy made before Redis went away, and caches again once every instance can be back', async () => {
      const port = await freePort();
      let own = await startRedisChild(port);
      const options = { ttlMs: 60_000, maxEntries: 10, rejoinMs: 1000 };
      const a = new RedisResultCache(`redis://127.0.0.1:${port}`, options);
      const b = new RedisResultCache(`redis://127.0.0.1:${port}`, options);
      await Promise.all([a.ready(), b.ready()]);
      try {
        const key = ResultCache.key('alice', 'fx__read', {});
        a.set(key, 'fx', result('before'));
        await eventually(async () => b.get(key, 'fx'), 'the entry on B');
        expect(b.get(key, 'fx')).toEqual(result('before'));
        own.kill('SIGKILL');
        await eventually(
          async () => (a.lastError && b.lastError ? true : undefined),
          'both to see Redis gone',
        );
        // A write through A while Redis is down: B hears nothing, so it must not answer from its copy.
        await a.invalidateServer('fx');
        expect(b.get(key, 'fx')).toBeUndefined();
        b.set(key, 'fx', result('during'));
        expect(b.get(key, 'fx')).toBeUndefined();

        own = await startRedisChild(port);
        await Promise.all([a.ready(), b.ready()]);
        // Back, but not caching yet: another instance may not be back with its invalidations.
        b.set(key, 'fx', result('too early'));
        expect(b.get(key, 'fx')).toBeUndefined();
        // A's invalidation reached Redis once it was back (a kept shared entry would be dropped).
        const { Redis } = await import('ioredis');
        const probe = new Redis(`redis://127.0.0.1:${port}`);
        expect(
          await eventually(
            async () => (await probe.get('toolwire:cache-gen:fx')) ?? undefined,
            'the generation',
          ),
        ).toBe('1');
        await probe.quit();
        // Caching again once both rejoined.
        expect(
          await eventually(async () => {
            b.set(key, 'fx', result('after'));
            return a.get(key, 'fx');
          }, 'the new entry on A'),
        ).toEqual(result('after'));
      } finally {
        await a.close();
        await b.close();
        own.kill('SIGKILL');
      }
    });
  });

  describe('RedisBreakerStateStore', () => {
    it('tells the other members of a transition, and a late joiner of the breakers open now', async () => {
      const prefix = 'test-breaker:';
      const a = new RedisBreakerStateStore(url, { prefix });
      const b = new RedisBreakerStateStore(url, { prefix });
      await Promise.all([a.ready(), b.ready()]);
      const heardByA: Array<[string, BreakerSnapshot]> = [];
      const heardByB: Array<[string, BreakerSnapshot]> = [];
      const memberA = a.join((server, snapshot) => heardByA.push([server, snapshot]));
      b.join((server, snapshot) => heardByB.push([server, snapshot]));
      let c: RedisBreakerStateStore | undefined;
      try {
        memberA.publish('fx', { state: 'open', openedAt: 1234 });
        await eventually(async () => heardByB[0], 'B to hear the open breaker');
        expect(heardByB).toEqual([['fx', { state: 'open', openedAt: 1234 }]]);
        expect(heardByA).toEqual([]);

        c = new RedisBreakerStateStore(url, { prefix });
        await c.ready();
        const heardByC: Array<[string, BreakerSnapshot]> = [];
        c.join((server, snapshot) => heardByC.push([server, snapshot]));
        await eventually(async () => heardByC[0], 'C to learn of the open breaker');
        expect(heardByC).toEqual([['fx', { state: 'open', openedAt: 1234 }]]);

        memberA.publish('fx', { state: 'closed', openedAt: 1234 });
        await eventually(async () => heardByB[1], 'B to hear the breaker close');
        expect(heardByB[1]).toEqual(['fx', { state: 'closed', openedAt: 1234 }]);
        await eventually(async () => heardByC[1], 'C to hear the breaker close');
      } finally {
        await a.close();
        await b.close();
        await c?.close();
      }
    });
  });

  describe('createForwarder with config.redis', () => {
    it('drops cached reads on every instance once a write through any instance has answered', async () => {
      const config = { redis: url, cache: { readOnlyTools: true } };
      const sourceA = stubSource();
      const sourceB = stubSource();
      const a = createForwarder({ config, audit: false, source: sourceA });
      const b = createForwarder({ config, audit: false, source: sourceB });
      const [urlA, urlB] = await Promise.all([a.listen(), b.listen()]);
      try {
        await Promise.all([a.ready(), b.ready()]);
        for (let round = 0; round < 20; round++) {
          await callOver(urlA.url, 'fx__read', { n: 7 });
          await callOver(urlB.url, 'fx__read', { n: 7 });
          const before = sourceA.calls + sourceB.calls;
          await callOver(urlB.url, 'fx__write', {});
          // No waiting: once the write is answered, no instance holds a copy of the old read.
          await callOver(urlA.url, 'fx__read', { n: 7 });
          expect(sourceA.calls + sourceB.calls).toBe(before + 1);
        }
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('is ready once its stores connect, and says why when Redis does not answer', async () => {
      const source = stubSource();
      const up = createForwarder({ source, config: { redis: url }, audit: false });
      const down = createForwarder({
        source,
        config: { redis: `redis://127.0.0.1:${await freePort()}` },
        audit: false,
      });
      try {
        await up.ready();
        await expect(down.ready(300)).rejects.toThrow(/ECONNREFUSED|ready/);
      } finally {
        await up.close();
        await down.close();
      }
    });

    it('shares cached results and open breakers between two forwarders', async () => {
      const sourceA = stubSource();
      const sourceB = stubSource();
      const config = { redis: url, cache: { ttlSeconds: 60, readOnlyTools: true } };
      const options = { config, audit: false as const, breaker: { failureThreshold: 1 } };
      const a = createForwarder({ ...options, source: sourceA, retry: false });
      const b = createForwarder({ ...options, source: sourceB, retry: false });
      try {
        // The Redis stores load on first need (the root entry loads no Redis client).
        await Promise.all([a.ready(), b.ready()]);
        const cacheA = a.pipeline.cache as RedisResultCache;
        const cacheB = b.pipeline.cache as RedisResultCache;
        expect(cacheA).toBeInstanceOf(RedisResultCache);

        expect(await a.callTool('fx__read', { n: 1 })).toEqual(result('read {"n":1}'));
        expect(sourceA.calls).toBe(1);
        await eventually(
          async () => cacheB.get(ResultCache.key('anonymous', 'fx__read', { n: 1 }), 'fx'),
          'the shared entry',
        );
        expect(await b.callTool('fx__read', { n: 1 })).toEqual(result('read {"n":1}'));
        expect(sourceB.calls).toBe(0);

        // list_changed on A drops the entry for B too.
        a.pipeline.toolsChanged('fx');
        await eventually(
          async () => (cacheB.size === 0 ? true : undefined),
          'B to drop its local copy',
        );
        expect(await b.callTool('fx__read', { n: 1 })).toEqual(result('read {"n":1}'));
        expect(sourceB.calls).toBe(1);

        // A's breaker opens on a lost connection; B refuses without calling its upstream.
        sourceA.failing = true;
        await expect(a.callTool('fx__read', { n: 2 })).rejects.toThrow(/connection refused/);
        expect(a.pipeline.breaker('fx').state).toBe('open');
        await eventually(
          async () => (b.pipeline.breaker('fx').state === 'open' ? true : undefined),
          "B's breaker to open",
        );
        await expect(b.callTool('fx__read', { n: 3 })).rejects.toThrow(/circuit breaker open/);
        expect(sourceB.calls).toBe(1);
        expect(await b.metrics()).toMatch(
          /toolwire_forwarder_circuit_breaker_state\{upstream="fx"\} 2/,
        );
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
});

describe.skipIf(HAS_REDIS_SERVER)('Redis stores', () => {
  it.skip('are skipped: redis-server is not installed (apt-get install redis-server)', () =>
    undefined);
});
