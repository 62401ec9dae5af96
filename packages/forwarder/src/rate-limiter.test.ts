import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
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

const redisServer = spawnSync('which', ['redis-server']).status === 0;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe.skipIf(!redisServer)('RedisRateLimiter (needs the redis-server Debian package)', () => {
  let redis: ChildProcess;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    url = `redis://127.0.0.1:${port}`;
    const { Redis } = await import('ioredis');
    // Ready once the server accepts it (ioredis retries every 50 ms until then).
    const probe = new Redis(url, { retryStrategy: () => 50 });
    probe.on('error', () => undefined);
    await new Promise((resolve) => probe.once('ready', resolve));
    await probe.quit();
  });

  afterAll(() => {
    redis?.kill('SIGTERM');
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
});

describe.skipIf(redisServer)('RedisRateLimiter', () => {
  it.skip('is skipped: redis-server is not installed (apt-get install redis-server)', () =>
    undefined);
});
