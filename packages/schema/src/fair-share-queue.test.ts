import { describe, expect, it } from 'vitest';
import { FairShareQueue, type FairShareRefusal } from './fair-share-queue.js';

class Busy extends Error {
  constructor(readonly refusal: FairShareRefusal) {
    super('busy');
  }
}

const queue = (capacity: number, share = {}) =>
  new FairShareQueue({
    capacity,
    share,
    busy: (refusal) => new Busy(refusal),
    aborted: (reason) => new Error(reason),
  });

describe('FairShareQueue', () => {
  it('holds each owner to its own share when the capacity is unbounded', async () => {
    const calls = queue(Number.POSITIVE_INFINITY, {
      maxActive: 1,
      maxQueued: 1,
      owners: { big: { maxActive: 3 } },
    });
    const first = await calls.acquire('a');
    const waiting = calls.acquire('a');
    await expect(calls.acquire('a')).rejects.toMatchObject({
      refusal: { owner: 'a', active: 1, queued: 1, retryAfterMs: expect.any(Number) },
    });
    // Another owner is not held to a's count; a named one has its own limits.
    const others = await Promise.all([
      calls.acquire('b'),
      ...[1, 2, 3].map(() => calls.acquire('big')),
    ]);
    expect(calls.snapshot()).toEqual({ active: { a: 1, b: 1, big: 3 }, queued: { a: 1 } });
    first.release();
    const second = await waiting;
    expect(second.queuedMs).toBeGreaterThanOrEqual(0);
    second.release();
    for (const grant of others) grant.release();
    expect(calls.snapshot()).toEqual({ active: {}, queued: {} });
  });

  it('serves waiting owners in turn, not whoever queued most', async () => {
    const pool = queue(1, { maxActive: 1, maxQueued: 8 });
    const held = await pool.acquire('flood');
    const order: string[] = [];
    const track = (owner: string) =>
      pool.acquire(owner).then((grant) => {
        order.push(owner);
        grant.release();
      });
    const all = [track('flood'), track('flood'), track('flood'), track('polite')];
    held.release();
    await Promise.all(all);
    expect(order).toEqual(['flood', 'polite', 'flood', 'flood']);
  });

  it('fails a waiting request with the aborted error when its signal aborts or the queue closes', async () => {
    const pool = queue(1);
    const held = await pool.acquire('a');
    const controller = new AbortController();
    const cancelled = pool.acquire('b', controller.signal);
    controller.abort();
    await expect(cancelled).rejects.toThrow('cancelled');
    const closed = pool.acquire('c');
    pool.close();
    await expect(closed).rejects.toThrow('closed');
    held.release();
  });
});
