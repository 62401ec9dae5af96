// Many owners on one executor (a gateway's tokens): what one owner does to the pool must not
// stall another owner's runs. Written as an attacker would try it; every test asserts on order,
// queue state and refusals, never on time.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SandboxBusyError } from '../errors.js';
import type { FairShareOptions } from '../fair-share.js';
import type { Executor, RunResult } from '../types.js';
import type { ContractOptions } from './executor-contract.js';

export type FairShareExecutorFactory = (options: {
  poolSize: number;
  fairShare?: FairShareOptions;
}) => Executor | Promise<Executor>;

/** A run whose outcome is watched without awaiting it. */
function watch(run: Promise<RunResult>): {
  settled: () => boolean;
  outcome: Promise<RunResult | unknown>;
} {
  let settled = false;
  const outcome = run.then(
    (result) => ((settled = true), result),
    (error: unknown) => ((settled = true), error),
  );
  return { settled: () => settled, outcome };
}

/** Long enough that only the test (aborting) ends these runs; a `waitFor` bound, not a timing. */
const patientMs = 120_000;
const waitLimit = { timeout: 30_000, interval: 20 };

export function runFairShareSuite(
  name: string,
  factory: FairShareExecutorFactory,
  options: ContractOptions = {},
): void {
  const title = options.skipReason
    ? `${name} fair share between owners (skipped: ${options.skipReason})`
    : `${name} fair share between owners`;
  describe.skipIf(options.skipReason !== undefined)(title, () => {
    const opened: Executor[] = [];
    const open = async (settings: Parameters<FairShareExecutorFactory>[0]) => {
      const executor = await factory(settings);
      opened.push(executor);
      return executor;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((executor) => executor.close()));
    });

    it("runs another owner's return 1 while one owner floods the pool with CPU-bound scripts", async () => {
      const executor = await open({ poolSize: 2 });
      const stop = new AbortController();
      let started = 0;
      const hostile = [0, 1, 2, 3].map(() =>
        watch(
          executor.run('await tools.started(); for (;;) {}', {
            owner: 'hostile',
            functions: { started: async () => ++started },
            limits: { timeoutMs: patientMs },
            signal: stop.signal,
          }),
        ),
      );
      await vi.waitFor(() => expect(started).toBeGreaterThanOrEqual(1), waitLimit);
      const polite = watch(executor.run('return 1', { owner: 'polite' }));
      // Today's FIFO pool of two: the flood holds both runners and queues ahead of the polite run,
      // which then waits for the flood's deadline.
      await vi.waitFor(() => expect(polite.settled()).toBe(true), waitLimit);
      expect(hostile.map((run) => run.settled())).toEqual([false, false, false, false]);
      expect(await polite.outcome).toMatchObject({ ok: true, value: 1 });
      // The flood holds half the pool and waits for its own turns.
      expect(executor.usage()).toEqual({ active: { hostile: 1 }, queued: { hostile: 3 } });
      stop.abort();
      const ended = (await Promise.all(hostile.map((run) => run.outcome))) as RunResult[];
      expect(ended.map((result) => result.error?.kind)).toEqual([
        'cancelled',
        'cancelled',
        'cancelled',
        'cancelled',
      ]);
      expect(started).toBeLessThanOrEqual(2);
    });

    it("refuses an owner's run past its queue with a rate-limit error, and still runs other owners", async () => {
      const executor = await open({ poolSize: 2, fairShare: { maxQueued: 2 } });
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let entered = 0;
      const block = async (): Promise<string> => {
        entered++;
        await gate;
        return 'done';
      };
      const flood = [0, 1, 2].map(() =>
        watch(
          executor.run('return await tools.block();', { owner: 'flood', functions: { block } }),
        ),
      );
      await vi.waitFor(() => expect(entered).toBe(1), waitLimit);
      const refused = watch(
        executor.run('return await tools.block();', { owner: 'flood', functions: { block } }),
      );
      // Today every run is queued, however many one owner sends.
      await vi.waitFor(() => expect(refused.settled()).toBe(true), waitLimit);
      const error = await refused.outcome;
      expect(error).toBeInstanceOf(SandboxBusyError);
      expect(error).toMatchObject({
        code: 'rate_limited',
        category: 'rateLimited',
        owner: 'flood',
        resource: 'runs',
      });
      expect((error as SandboxBusyError).retryAfterMs).toBeGreaterThan(0);
      expect((error as SandboxBusyError).message).toMatch(/Try again in \d+ ms/);
      expect(await executor.run('return "other owner"', { owner: 'polite' })).toMatchObject({
        ok: true,
        value: 'other owner',
      });
      release();
      const results = (await Promise.all(flood.map((run) => run.outcome))) as RunResult[];
      expect(results.map((result) => result.value)).toEqual(['done', 'done', 'done']);
      // The runs that waited say how long, apart from their run time.
      expect(results[2]!.queuedMs).toBeGreaterThan(0);
    });

    it('gives a named owner the share its settings say, and the others the default', async () => {
      const executor = await open({
        poolSize: 2,
        fairShare: { owners: { batch: { maxActive: 2 } } },
      });
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let entered = 0;
      const block = async (): Promise<null> => {
        entered++;
        await gate;
        return null;
      };
      const runs = ['batch', 'batch', 'other', 'other'].map((owner) =>
        executor.run('return await tools.block();', { owner, functions: { block } }),
      );
      await vi.waitFor(() => expect(entered).toBe(2), waitLimit);
      expect(executor.usage()).toEqual({ active: { batch: 2 }, queued: { other: 2 } });
      release();
      await Promise.all(runs);
      expect(executor.usage()).toEqual({ active: {}, queued: {} });
    });
  });
}
