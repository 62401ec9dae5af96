import { describe, expect, it } from 'vitest';
import { createQuickJSExecutor } from './quickjs-executor.js';
import { runExecutorContract } from './testing/executor-contract.js';
import { runExecutorSecuritySuite } from './testing/security-contract.js';
import { runFairShareSuite } from './testing/fair-share-contract.js';

runExecutorContract('quickjs', () => createQuickJSExecutor({ poolSize: 2 }));
runExecutorSecuritySuite('quickjs', () => createQuickJSExecutor({ poolSize: 2 }));
runFairShareSuite('quickjs', (options) => createQuickJSExecutor(options));

describe('createQuickJSExecutor', () => {
  it('rejects a bad pool size naming the option', () => {
    expect(() => createQuickJSExecutor({ poolSize: 0 })).toThrow(/poolSize/);
  });

  it('cancels a run that is still waiting for a free worker', async () => {
    const executor = createQuickJSExecutor({ poolSize: 1 });
    try {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const blocking = new Promise<void>((resolve) => (entered = resolve));
      const busy = executor.run('return await tools.block();', {
        functions: {
          block: async () => {
            entered();
            await gate;
            return 'done';
          },
        },
      });
      await blocking;
      const controller = new AbortController();
      const queued = executor.run('return "ran";', { signal: controller.signal });
      controller.abort();
      // Settles while the only worker is still busy: the queued run never started.
      expect((await queued).error).toMatchObject({ kind: 'cancelled' });
      release();
      expect((await busy).value).toBe('done');
    } finally {
      await executor.close();
    }
  });

  it('replaces a worker that does not stop in time', async () => {
    // A grace period of 1 ms leaves the interrupted worker no time to report, so it is terminated.
    const executor = createQuickJSExecutor({ poolSize: 1, stopGraceMs: 1 });
    try {
      const result = await executor.run('while (true) {}', { limits: { timeoutMs: 100 } });
      expect(result.error).toMatchObject({ kind: 'timeout' });
      expect((await executor.run('return "fresh worker"')).value).toBe('fresh worker');
    } finally {
      await executor.close();
    }
  });
});
