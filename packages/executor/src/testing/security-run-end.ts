// The part of the security suite about the end of a run: once the script has finished (or been
// stopped), nothing of it runs and no call it made late reaches a tool; calls already sent are
// waited for, up to the deadline, and reported as they really ended.
import { describe, expect, it, vi } from 'vitest';
import type { Executor, HostFunction } from '../types.js';

const MiB = 1024 * 1024;

export function describeRunEnd(getExecutor: () => Executor): void {
  describe('the end of the run', () => {
    const recorder = (): { calls: unknown[]; fn: HostFunction } => {
      const calls: unknown[] = [];
      return { calls, fn: async (args) => void calls.push(args) };
    };
    // The host drops a run's messages once it has settled, so a refused call could only run if
    // it was sent before the result: one more full run on the executor lets any such call land.
    const settleHost = async (): Promise<void> => {
      expect((await getExecutor().run('return "settled"')).value).toBe('settled');
    };

    it('refuses a call made in the turn in which the script returns, and never runs it', async () => {
      const write = recorder();
      const result = await getExecutor().run(`tools.write({ late: true }); return 'returned';`, {
        functions: { write: write.fn },
      });
      expect(result.value).toBe('returned');
      await settleHost();
      expect(write.calls).toEqual([]);
      expect(result.toolCalls).toMatchObject([
        {
          name: 'write',
          arguments: { late: true },
          outcome: 'cancelled',
          error: { category: 'cancelled', message: expect.stringMatching(/Not executed/) },
        },
      ]);
    });

    it('drops promise jobs queued before the return: their tool calls never run', async () => {
      const write = recorder();
      const result = await getExecutor().run(
        `Promise.resolve().then(() => tools.write({ fromJob: true })); return 'returned';`,
        { functions: { write: write.fn } },
      );
      expect(result.value).toBe('returned');
      await settleHost();
      expect(write.calls).toEqual([]);
      // An engine that runs the queued job first records its call as refused; none ran.
      for (const call of result.toolCalls) expect(call.outcome).toBe('cancelled');
    });

    it('ends a script whose jobs keep running after the return, with its own result', async () => {
      const ping = recorder();
      const result = await getExecutor().run(
        `const keep = [];
         const spin = () => { keep.push(new Array(10000).fill(0)); tools.ping(); return Promise.resolve().then(spin); };
         spin();
         return 'returned';`,
        { functions: { ping: ping.fn }, limits: { memoryBytes: 32 * MiB, timeoutMs: 10_000 } },
      );
      expect(result.value).toBe('returned');
      await settleHost();
      expect(ping.calls).toEqual([]);
      expect((await getExecutor().run('return "next"')).value).toBe('next');
    });

    // A chain of promise jobs, each logging its step, started before the script ends. The run
    // ends in the job in which the script's body completes: no later job runs, so only the
    // step logged synchronously shows, on every engine (an engine that noticed the end a few
    // jobs late would show 'step 2', 'step 3', …; one that ran the whole queue, all 2000).
    const lateChain = `let step = 0;
         const tick = () => {
           step += 1;
           console.log('step ' + step);
           if (step < 2000) return Promise.resolve().then(tick);
         };`;
    const endings: Record<string, { code: string; value?: unknown; error?: string }> = {
      'it returns': { code: `tick(); return 'returned';`, value: 'returned' },
      'it returns after awaiting a tool': {
        code: `await tools.quick(); tick(); return 'returned';`,
        value: 'returned',
      },
      'it returns from a try with a finally': {
        code: `try { tick(); return 'returned'; } finally { console.log('finally'); }`,
        value: 'returned',
      },
      'it throws': { code: `tick(); throw new Error('thrown');`, error: 'runtime' },
      'it falls off the end': { code: `tick();`, value: undefined },
      'it is a function expression that returns': {
        code: `async () => {\n${lateChain}\ntick(); return 'returned'; }`,
        value: 'returned',
      },
    };
    for (const [ending, { code, value, error }] of Object.entries(endings)) {
      it(`runs no job of the script once ${ending}: a chain queued before the end stops`, async () => {
        const script = code.startsWith('async') ? code : `${lateChain}\n${code}`;
        const result = await getExecutor().run(script, {
          functions: { quick: async () => 'quick' },
          limits: { maxLogLines: 10_000, timeoutMs: 10_000 },
        });
        if (error) expect(result.error?.kind).toBe(error);
        else {
          expect(result.error).toBeUndefined();
          expect(result.value).toBe(value);
        }
        const expected = ending.includes('finally') ? ['step 1', 'finally'] : ['step 1'];
        expect(result.logs.map((entry) => entry.message)).toEqual(expected);
      });
    }

    it('waits for a call that was already sent and reports how it really ended', async () => {
      let written = false;
      const result = await getExecutor().run(
        `const pending = tools.slowWrite(); await tools.quick(); return 'returned';`,
        {
          functions: {
            slowWrite: async () => {
              // Still running after the script has returned and its runner has been given back.
              await vi.waitFor(() => expect(getExecutor().usage().active).toEqual({}), {
                timeout: 10_000,
                interval: 5,
              });
              written = true;
              return 'written';
            },
            quick: async () => 'quick',
          },
        },
      );
      expect(result.value).toBe('returned');
      expect(written).toBe(true);
      expect(result.toolCalls.find((call) => call.name === 'slowWrite')).toMatchObject({
        outcome: 'ok',
      });
    });

    it('waits for a call already sent no longer than the deadline, and says so', async () => {
      let signal: AbortSignal | undefined;
      const result = await getExecutor().run(
        `const pending = tools.hang(); await tools.quick(); return 'returned';`,
        {
          functions: {
            hang: (_args, context) => {
              signal = context.signal;
              return new Promise(() => {});
            },
            quick: async () => 'quick',
          },
          limits: { timeoutMs: 500 },
        },
      );
      expect(result.value).toBe('returned');
      expect(signal?.aborted).toBe(true);
      expect(result.toolCalls.find((call) => call.name === 'hang')).toMatchObject({
        outcome: 'cancelled',
        error: { category: 'cancelled', message: expect.stringMatching(/Still running/) },
      });
    });
  });
}
