// The limits part of the executor contract: every limit of `ExecutionLimits` ends the run (or
// refuses the call) the way the README's table says, with a message naming the limit.
import { describe, expect, it } from 'vitest';
import type { Executor } from '../types.js';
import type { ContractOptions } from './executor-contract.js';

export function describeLimits(getExecutor: () => Executor, options: ContractOptions): void {
  describe('limits', () => {
    it('stops a synchronous endless loop at timeoutMs while the host event loop keeps running', async () => {
      let ticks = 0;
      const interval = setInterval(() => ticks++, 10);
      try {
        const result = await getExecutor().run('while (true) {}', { limits: { timeoutMs: 400 } });
        expect(result.error).toMatchObject({ kind: 'timeout' });
        expect(result.error!.message).toMatch(/400 ms/);
      } finally {
        clearInterval(interval);
      }
      expect(ticks).toBeGreaterThan(3);
    });

    it('stops an endless loop that starts after an await', async () => {
      const result = await getExecutor().run('await tools.noop();\nfor (;;) {}', {
        functions: { noop: async () => null },
        limits: { timeoutMs: 1000 },
      });
      expect(result.error).toMatchObject({ kind: 'timeout' });
      expect(result.toolCalls).toMatchObject([{ name: 'noop', outcome: 'ok' }]);
    });

    it('stops a script whose tool never returns, and aborts that tool', async () => {
      let toolSignal: AbortSignal | undefined;
      const result = await getExecutor().run('return await tools.never();', {
        functions: {
          never: (_args, { signal }) => {
            toolSignal = signal;
            return new Promise(() => {});
          },
        },
        limits: { timeoutMs: 200 },
      });
      expect(result.error).toMatchObject({ kind: 'timeout' });
      expect(toolSignal?.aborted).toBe(true);
      expect(result.toolCalls[0]).toMatchObject({ name: 'never', outcome: 'cancelled' });
      expect(result.toolCalls[0]!.durationMs).toBeGreaterThanOrEqual(0);
    });

    it('stops a memory bomb with a memory error', async () => {
      const result = await getExecutor().run(
        'const a = [];\nwhile (true) a.push({ a: 1, b: [1, 2, 3], c: "xx" + a.length });',
        {
          // Wall time far beyond what the bomb needs, so only the memory limit can stop it
          // even on a heavily loaded machine.
          limits: { memoryBytes: 16 * 1024 * 1024, timeoutMs: 90_000 },
        },
      );
      expect(result.error).toMatchObject({ kind: 'memory' });
      expect(result.error!.message).toMatch(/memory/);
      expect((await getExecutor().run('return [1, 2].length')).value).toBe(2);
    }, 120_000);

    it('explains a thrown null, which is also how the engine reports exhausted memory', async () => {
      const result = await getExecutor().run('throw null;', {
        limits: { memoryBytes: 32 * 1024 * 1024 },
      });
      expect(result.error).toMatchObject({ kind: 'runtime' });
      expect(result.error!.message).toMatch(/^Uncaught null .*runs out of memory, limit 32 MB/);
    });

    it(`stops a large single allocation with a memory error${options.softMemoryLimit ? ' (or at the deadline: soft memory limit)' : ''}`, async () => {
      const result = await getExecutor().run(
        'const big = new Array(100_000_000).fill(1); return big.length;',
        {
          limits: { memoryBytes: 16 * 1024 * 1024, timeoutMs: 3000 },
        },
      );
      expect(result.ok).toBe(false);
      expect(options.softMemoryLimit ? ['memory', 'timeout'] : ['memory']).toContain(
        result.error!.kind,
      );
      expect((await getExecutor().run('return "recovered"')).value).toBe('recovered');
    });

    it('stops runaway recursion with a stack-overflow error', async () => {
      const result = await getExecutor().run(
        'function down(n) { return down(n + 1) + 1; }\nreturn down(0);',
        {
          limits: { stackBytes: 256 * 1024 },
        },
      );
      expect(result.error).toMatchObject({ kind: 'stack-overflow' });
      expect(result.error!.stack?.split('\n').length ?? 0).toBeLessThanOrEqual(11);
    });

    it('refuses a script over maxSourceBytes before running it', async () => {
      const result = await getExecutor().run(`return "${'x'.repeat(2000)}";`, {
        limits: { maxSourceBytes: 1000 },
      });
      expect(result.error).toMatchObject({ kind: 'source-too-large' });
      expect(result.error!.message).toMatch(/maxSourceBytes/);
    });

    it('refuses a result over maxResultBytes', async () => {
      const result = await getExecutor().run('return "x".repeat(5000);', {
        limits: { maxResultBytes: 1000 },
      });
      expect(result.error).toMatchObject({ kind: 'output-too-large' });
      expect(result.error!.message).toMatch(/maxResultBytes/);
    });

    it('counts result size in UTF-8 bytes', async () => {
      const result = await getExecutor().run('return "é".repeat(600);', {
        limits: { maxResultBytes: 1000 },
      });
      expect(result.error).toMatchObject({ kind: 'output-too-large' });
    });

    it('keeps console output within maxLogLines and says it was truncated', async () => {
      const result = await getExecutor().run(
        'for (let i = 0; i < 50; i++) console.log("line " + i); return "done";',
        {
          limits: { maxLogLines: 10 },
        },
      );
      expect(result).toMatchObject({ ok: true, value: 'done', logsTruncated: true });
      expect(result.logs).toHaveLength(11);
      expect(result.logs[9]!.message).toBe('line 9');
      expect(result.logs[10]!.message).toMatch(/truncated/);
    });

    it('keeps console output within maxLogBytes', async () => {
      const result = await getExecutor().run(
        'for (let i = 0; i < 100; i++) console.log("y".repeat(100)); return 1;',
        {
          limits: { maxLogBytes: 1000 },
        },
      );
      expect(result.logsTruncated).toBe(true);
      expect(result.stats.logBytes).toBeLessThanOrEqual(1000);
      expect(result.logs.length).toBe(11);
    });

    it('ends the run when the script makes more than maxToolCalls calls, even if it catches', async () => {
      let calls = 0;
      const result = await getExecutor().run(
        'for (let i = 0; i < 10; i++) { try { await tools.count(); } catch (e) {} }\nreturn "finished";',
        { functions: { count: async () => ++calls }, limits: { maxToolCalls: 3 } },
      );
      expect(result.error).toMatchObject({ kind: 'too-many-tool-calls' });
      expect(result.error!.message).toMatch(/maxToolCalls/);
      expect(calls).toBe(3);
      expect(result.toolCalls).toHaveLength(3);
    });

    it('runs at most maxInFlight tool calls at once', async () => {
      let running = 0;
      let peak = 0;
      let waiting: Array<() => void> = [];
      const result = await getExecutor().run(
        'return await Promise.all([1, 2, 3, 4, 5, 6].map((n) => tools.work({ n })));',
        {
          functions: {
            work: async (args) => {
              running++;
              peak = Math.max(peak, running);
              // Calls finish in pairs: each waits until a second one is running beside it, so
              // the run only completes if two calls really are in flight at once.
              await new Promise<void>((resolve) => {
                waiting.push(resolve);
                if (waiting.length === 2) {
                  for (const wake of waiting) wake();
                  waiting = [];
                }
              });
              running--;
              return (args as { n: number }).n;
            },
          },
          limits: { maxInFlight: 2 },
        },
      );
      expect(result.value).toEqual([1, 2, 3, 4, 5, 6]);
      expect(peak).toBe(2);
    });

    it('rejects a tool call whose arguments exceed maxToolInputBytes', async () => {
      let called = false;
      const result = await getExecutor().run(
        'try { await tools.upload({ data: "z".repeat(5000) }); } catch (e) { return [e.category, e.message]; }',
        {
          functions: { upload: async () => (called = true) },
          limits: { maxToolInputBytes: 1000 },
        },
      );
      expect(called).toBe(false);
      expect(result.value).toEqual([
        'invalidArguments',
        expect.stringMatching(/maxToolInputBytes/),
      ]);
      expect(result.toolCalls[0]).toMatchObject({
        outcome: 'error',
        error: { category: 'invalidArguments' },
      });
    });

    it('rejects a tool result over maxToolOutputBytes', async () => {
      const result = await getExecutor().run(
        'try { await tools.dump(); } catch (e) { return e.message; }',
        {
          functions: { dump: async () => 'q'.repeat(10_000) },
          limits: { maxToolOutputBytes: 1000 },
        },
      );
      expect(result.value).toMatch(/maxToolOutputBytes/);
    });
  });
}
