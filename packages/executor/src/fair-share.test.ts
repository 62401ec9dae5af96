import { describe, expect, it } from 'vitest';
import { InvalidRunOptionsError, SandboxBusyError, WaitAbortedError } from './errors.js';
import { FairShare } from './fair-share.js';
import type { FairShareGrant } from './fair-share.js';

/** Requests in the order they were granted, each as `owner#n`. */
function recorder(share: FairShare) {
  const granted: string[] = [];
  const grants = new Map<string, FairShareGrant>();
  const request = (owner: string, n: number, signal?: AbortSignal) =>
    share.acquire(owner, signal).then((grant) => {
      granted.push(`${owner}#${n}`);
      grants.set(`${owner}#${n}`, grant);
      return grant;
    });
  const release = async (key: string) => {
    grants.get(key)!.release();
    // Grants are handed over in promise callbacks: let them run.
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
  return { granted, request, release };
}

describe('FairShare', () => {
  it('serves waiting owners in turn, not in the order they queued', async () => {
    const share = new FairShare({ capacity: 1, resource: 'runs' });
    const { granted, request, release } = recorder(share);
    await request('flood', 1);
    for (const n of [2, 3, 4]) void request('flood', n);
    void request('polite', 1);
    void request('third', 1);
    expect(share.snapshot()).toEqual({
      active: { flood: 1 },
      queued: { flood: 3, polite: 1, third: 1 },
    });
    for (const key of ['flood#1', 'flood#2', 'polite#1', 'third#1', 'flood#3']) await release(key);
    expect(granted).toEqual(['flood#1', 'flood#2', 'polite#1', 'third#1', 'flood#3', 'flood#4']);
  });

  it('holds an owner to half the capacity by default and lets others use the rest at once', async () => {
    const share = new FairShare({ capacity: 4, resource: 'runs' });
    const { granted, request } = recorder(share);
    for (const n of [1, 2, 3]) void request('flood', n);
    await request('polite', 1);
    await request('polite', 2);
    expect(granted).toEqual(['flood#1', 'flood#2', 'polite#1', 'polite#2']);
    expect(share.snapshot()).toEqual({ active: { flood: 2, polite: 2 }, queued: { flood: 1 } });
  });

  it("refuses a request past the owner's queue with retryAfterMs from its hold times", async () => {
    const share = new FairShare({ capacity: 1, resource: 'type checks', share: { maxQueued: 1 } });
    const { request, release } = recorder(share);
    await request('flood', 1);
    await release('flood#1');
    await request('flood', 2);
    void request('flood', 3);
    const refusal = await share.acquire('flood').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SandboxBusyError);
    expect(refusal).toMatchObject({
      code: 'rate_limited',
      category: 'rateLimited',
      resource: 'type checks',
      owner: 'flood',
      details: { retryAfterMs: expect.any(Number), resource: 'type checks' },
    });
    expect((refusal as SandboxBusyError).retryAfterMs).toBeGreaterThanOrEqual(100);
    // Another owner still queues.
    void request('polite', 1);
    expect(share.snapshot().queued).toEqual({ flood: 1, polite: 1 });
  });

  it('takes per-owner settings over the defaults, and new settings at once', async () => {
    const share = new FairShare({
      capacity: 2,
      resource: 'runs',
      share: { maxQueued: 0, owners: { trusted: { maxActive: 2, maxQueued: 4 } } },
    });
    expect(share.limitsOf('trusted')).toEqual({ maxActive: 2, maxQueued: 4 });
    expect(share.limitsOf('anyone')).toEqual({ maxActive: 1, maxQueued: 0 });
    const { granted, request } = recorder(share);
    await request('anyone', 1);
    await expect(share.acquire('anyone')).rejects.toBeInstanceOf(SandboxBusyError);
    share.configure({ maxActive: 2 });
    await request('anyone', 2);
    expect(granted).toEqual(['anyone#1', 'anyone#2']);
  });

  it('drops a request whose signal aborts while it waits', async () => {
    const share = new FairShare({ capacity: 1, resource: 'runs' });
    const { granted, request, release } = recorder(share);
    await request('a', 1);
    const controller = new AbortController();
    const waiting = request('a', 2, controller.signal).catch((error: unknown) => error);
    void request('b', 1);
    controller.abort();
    expect(await waiting).toBeInstanceOf(WaitAbortedError);
    await release('a#1');
    expect(granted).toEqual(['a#1', 'b#1']);
  });

  it('refuses every waiting and later request once closed', async () => {
    const share = new FairShare({ capacity: 1, resource: 'runs' });
    await share.acquire('a');
    const waiting = share.acquire('b').catch((error: unknown) => error);
    share.close();
    expect(await waiting).toMatchObject({ code: 'executor_closed' });
    await expect(share.acquire('c')).rejects.toBeInstanceOf(WaitAbortedError);
  });

  it('rejects bad settings naming the field', () => {
    expect(() => new FairShare({ capacity: 1, resource: 'runs', share: { maxActive: 0 } })).toThrow(
      InvalidRunOptionsError,
    );
    expect(
      () =>
        new FairShare({
          capacity: 1,
          resource: 'runs',
          share: { owners: { ci: { maxQueued: -1 } } },
        }),
    ).toThrow(/fairShare\.owners\.ci\.maxQueued: expected an integer >= 0, got -1/);
  });
});
