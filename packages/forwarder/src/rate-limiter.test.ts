import { freePort, HAS_REDIS_SERVER, startRedisServer } from '../test/helpers/redis-server.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { MemoryRateLimiter, type RateLimiter } from './rate-limiter.js';
import { RedisRateLimiter } from './redis/redis-rate-limiter.js';

/**
 * The cases every rate-limit store must pass, with the same answers: limits keep their meaning
 * when a deployment moves between memory and Redis (or Redis drops and memory takes over).
 */
function rateLimiterCases(make: () => RateLimiter | Promise<RateLimiter>): void {
  let limiter: RateLimiter;
  beforeEach(async () => {
    limiter = await make();
  });
  afterEach(async () => {
    await limiter.close();
  });

  it('allows the per-minute budget, then answers how long to wait, refilling over time', async () => {
    expect(await limiter.consume('k', 2, 0)).toBe(0);
    expect(await limiter.consume('k', 2, 0)).toBe(0);
    expect(await limiter.consume('k', 2, 0)).toBe(30_000);
    expect(await limiter.consume('k', 2, 29_999)).toBe(1);
    expect(await limiter.consume('k', 2, 30_000)).toBe(0);
    expect(await limiter.consume('other', 2, 30_000)).toBe(0);
  });

  it('refills continuously at perMinute / 60 s, also for limits that do not divide a minute', async () => {
    for (let i = 0; i < 7; i++) expect(await limiter.consume('k', 7, 1_000)).toBe(0);
    expect(await limiter.consume('k', 7, 1_000)).toBe(8_572);
    expect(await limiter.consume('k', 7, 9_572)).toBe(0);
    expect(await limiter.consume('k', 7, 9_572)).toBeGreaterThan(0);
  });

  it('does not charge refused calls, and is full again after a quiet minute', async () => {
    expect(await limiter.consume('k', 1, 0)).toBe(0);
    for (let i = 0; i < 5; i++) expect(await limiter.consume('k', 1, 0)).toBe(60_000);
    expect(await limiter.consume('k', 1, 60_000)).toBe(0);
    for (let i = 0; i < 3; i++) expect(await limiter.consume('q', 3, 0)).toBe(0);
    for (let i = 0; i < 3; i++) expect(await limiter.consume('q', 3, 120_000)).toBe(0);
    expect(await limiter.consume('q', 3, 120_000)).toBe(20_000);
  });
}

describe('MemoryRateLimiter', () => {
  rateLimiterCases(() => new MemoryRateLimiter());
});

describe.skipIf(!HAS_REDIS_SERVER)(
  'RedisRateLimiter (needs the redis-server Debian package)',
  () => {
    let redis: { url: string; stop(): void };
    let url: string;

    beforeAll(async () => {
      redis = await startRedisServer();
      url = redis.url;
    });

    afterAll(() => {
      redis?.stop();
    });

    describe('the rate-limit cases, on Redis', () => {
      rateLimiterCases(async () => {
        const limiter = new RedisRateLimiter(url, { prefix: `test:${randomUUID()}:` });
        await limiter.ready();
        return limiter;
      });
    });

    it('falls back to in-memory limits while Redis is unreachable', async () => {
      const port = await freePort();
      const limiter = new RedisRateLimiter(`redis://127.0.0.1:${port}`);
      try {
        await expect(limiter.ready(500)).rejects.toThrow(/ECONNREFUSED|ready/);
        expect(await limiter.consume('k', 1)).toBe(0);
        expect(await limiter.consume('k', 1)).toBeGreaterThan(0);
        expect(limiter.lastError).toBeDefined();
      } finally {
        await limiter.close();
      }
    });

    it('answers from memory when Redis stops answering mid-command (a call is not held until it returns)', async () => {
      const own = await startRedisServer();
      const limiter = new RedisRateLimiter(own.url, { prefix: `test:${randomUUID()}:` });
      await limiter.ready();
      try {
        expect(await limiter.consume('hung', 100)).toBe(0);
        // Frozen, not dead: the connection stays open and a command sent now gets no answer.
        own.child.kill('SIGSTOP');
        expect(await limiter.consume('hung', 100)).toBe(0);
        expect(limiter.lastError?.message).toMatch(/timed out/i);
      } finally {
        own.child.kill('SIGCONT');
        await limiter.close();
        own.stop();
      }
    });

    it('shares one budget between two instances pointing at the same Redis', async () => {
      const a = new RedisRateLimiter(url);
      const b = new RedisRateLimiter(url);
      await Promise.all([a.ready(), b.ready()]);
      try {
        expect(await a.consume('shared', 3)).toBe(0);
        expect(await b.consume('shared', 3)).toBe(0);
        expect(await a.consume('shared', 3)).toBe(0);
        const wait = await b.consume('shared', 3);
        expect(wait).toBeGreaterThan(0);
        expect(wait).toBeLessThanOrEqual(60_000);
        expect(await b.consume('unrelated', 3)).toBe(0);
      } finally {
        await a.close();
        await b.close();
      }
    });
  },
);

describe.skipIf(HAS_REDIS_SERVER)('RedisRateLimiter', () => {
  it.skip('is skipped: redis-server is not installed (apt-get install redis-server)', () =>
    undefined);
});
