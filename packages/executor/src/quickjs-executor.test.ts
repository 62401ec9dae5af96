import { describe, expect, it } from 'vitest';
import { createQuickJSExecutor } from './quickjs-executor.js';
import { runExecutorContract } from './testing/executor-contract.js';
import { runExecutorSecuritySuite } from './testing/security-contract.js';

runExecutorContract('quickjs', () => createQuickJSExecutor({ poolSize: 2 }));
runExecutorSecuritySuite('quickjs', () => createQuickJSExecutor({ poolSize: 2 }));

describe('createQuickJSExecutor', () => {
  it('rejects a bad pool size naming the option', () => {
    expect(() => createQuickJSExecutor({ poolSize: 0 })).toThrow(/poolSize/);
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
