import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter, RedisRateLimiter } from './rate-limiter.js';

describe('MemoryRateLimiter', () => {
  it('allows the per-minute budget, then answers how long to wait, refilling over time', () => {
    const limiter = new MemoryRateLimiter();
    expect(limiter.consume('k', 2, 0)).toBe(0);
    expect(limiter.consume('k', 2, 0)).toBe(0);
    expect(limiter.consume('k', 2, 0)).toBe(30_000);
    expect(limiter.consume('k', 2, 30_000)).toBe(0);
    expect(limiter.consume('other', 2, 30_000)).toBe(0);
  });
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
    const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => 50 });
    probe.on('error', () => undefined);
    for (let i = 0; i < 100 && probe.status !== 'ready'; i++) {
      await probe.connect().catch(() => new Promise((r) => setTimeout(r, 50)));
    }
    await probe.quit();
  });

  afterAll(() => {
    redis?.kill('SIGTERM');
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
