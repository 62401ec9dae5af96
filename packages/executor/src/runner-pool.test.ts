import { describe, expect, it, vi } from 'vitest';
import { WaitAbortedError } from './errors.js';
import { RunnerPool } from './runner-pool.js';
import type { RunnerChannel } from './runner-pool.js';

interface FakeChannel extends RunnerChannel {
  id: number;
  terminated: boolean;
  die(): void;
}

function fakes(): { spawn: () => RunnerChannel; made: FakeChannel[] } {
  const made: FakeChannel[] = [];
  const spawn = (): RunnerChannel => {
    const listeners = new Set<(error: Error) => void>();
    const channel: FakeChannel = {
      id: made.length + 1,
      terminated: false,
      ready: Promise.resolve(),
      sharedStopFlag: false,
      send: () => {},
      onMessage: () => {},
      onExit: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      setActive: () => {},
      terminate: async () => {
        channel.terminated = true;
      },
      die: () => {
        for (const listener of listeners) listener(new Error('crashed'));
      },
    };
    made.push(channel);
    return channel;
  };
  return { spawn, made };
}

describe('RunnerPool', () => {
  it('creates runners lazily up to its size and queues the rest', async () => {
    const { spawn, made } = fakes();
    const pool = new RunnerPool(2, spawn);
    const a = await pool.acquire();
    const b = await pool.acquire();
    expect(made).toHaveLength(2);
    let third: unknown;
    const waiting = pool.acquire().then((runner) => (third = runner));
    await Promise.resolve();
    expect(third).toBeUndefined();
    pool.release(a);
    await waiting;
    expect(third).toBe(a);
    pool.release(b);
    expect(made).toHaveLength(2);
  });

  it('replaces a discarded runner for the next waiting run', async () => {
    const { spawn, made } = fakes();
    const pool = new RunnerPool(1, spawn);
    const first = await pool.acquire();
    const waiting = pool.acquire();
    pool.discard(first);
    const second = await waiting;
    expect((made[0] as FakeChannel).terminated).toBe(true);
    expect(second.channel).toBe(made[1]);
  });

  it('starts a replacement as soon as a runner is discarded, not when the next run asks', async () => {
    const { spawn, made } = fakes();
    const pool = new RunnerPool(2, spawn);
    const kept = await pool.acquire();
    const stopped = await pool.acquire();
    pool.discard(stopped);
    expect(made).toHaveLength(3);
    // The replacement is idle once started: the next run gets it, no one waits for an engine.
    await vi.waitFor(() => expect(pool.idleCount).toBe(1));
    expect((await pool.acquire()).channel).toBe(made[2]);
    pool.release(kept);
  });

  it('never hands out a runner that died while idle', async () => {
    const { spawn, made } = fakes();
    const pool = new RunnerPool(1, spawn);
    const runner = await pool.acquire();
    pool.release(runner);
    (made[0] as FakeChannel).die();
    const next = await pool.acquire();
    expect(next.channel).toBe(made[1]);
  });

  it('stops waiting when the run is cancelled', async () => {
    const { spawn } = fakes();
    const pool = new RunnerPool(1, spawn);
    const busy = await pool.acquire();
    const controller = new AbortController();
    const waiting = pool.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toThrow(WaitAbortedError);
    pool.release(busy);
    expect(await pool.acquire()).toBe(busy);
  });

  it('rejects waiting runs and terminates runners on close', async () => {
    const { spawn, made } = fakes();
    const pool = new RunnerPool(1, spawn);
    await pool.acquire();
    const waiting = pool.acquire();
    await pool.close();
    await expect(waiting).rejects.toThrow(/closed/);
    expect((made[0] as FakeChannel).terminated).toBe(true);
    expect(pool.isClosed).toBe(true);
  });
});
