// A throwaway redis-server (Debian's `redis-server`) for the Redis store tests, on a free port.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export const HAS_REDIS_SERVER = spawnSync('which', ['redis-server']).status === 0;

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts redis-server without persistence (on `port`, default a free one); resolves once it accepts a client. */
export async function startRedisServer(
  port?: number,
): Promise<{ url: string; child: ChildProcess; stop(): void }> {
  port ??= await freePort();
  const redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const { Redis } = await import('ioredis');
  // Ready once the server accepts it (ioredis retries every 50 ms until then).
  const probe = new Redis(url, { retryStrategy: () => 50 });
  probe.on('error', () => undefined);
  await new Promise((resolve) => probe.once('ready', resolve));
  await probe.quit();
  return { url, child: redis, stop: () => redis.kill('SIGTERM') };
}
