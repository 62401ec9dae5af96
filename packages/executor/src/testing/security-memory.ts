// The host-memory part of the security suite: every way a script can hold memory, measured as the
// resident memory of this process and its runner processes (/proc), never as the engine's own
// count, since the limit is a promise about the host.
import { describe, expect, it, vi } from 'vitest';
import {
  allocationPatterns,
  hostMemorySkipNote,
  runHostMemoryTests,
  measurePeak,
  mebibytes,
  residentBytes,
  runnerOverheadBytes,
} from '@toolwire/testing/memory';
import type { Executor } from '../types.js';

const MiB = 1024 * 1024;

/**
 * Native string and regexp work on a 30 MB string: the engine's own code allocates the results
 * and its temporary buffers, outside what a JavaScript heap limit sees (isolated-vm's heap limit
 * let a global replace reach +964 MB, split and stringify +259 MB, match +144 MB).
 */
export const nativeStringPatterns: Readonly<Record<string, string>> = {
  'String.prototype.replace with a global regexp': `return 'ab'.repeat(15e6).replace(/a/g, 'xyz').length;`,
  'String.prototype.split into characters': `return 'ab'.repeat(15e6).split('').length;`,
  'locale case mapping': `return 'ab'.repeat(15e6).toLocaleUpperCase('tr').length;`,
  'JSON.stringify of large strings': `const s = 'ab'.repeat(15e6); return JSON.stringify([s, s, s, s]).length;`,
  'String.prototype.match with a global regexp': `return 'ab'.repeat(15e6).match(/a/g).length;`,
};

export function describeHostMemory(getExecutor: () => Executor): void {
  // Measured as the resident memory of this process and its runner processes (/proc), never as
  // the engine's own count: the limit is a promise about the host.
  describe.skipIf(!runHostMemoryTests)(`host memory${hostMemorySkipNote}`, () => {
    const memoryBytes = 16 * MiB;
    /** Left-over allocator slack a finished run may leave in a long-lived process. */
    const settleSlack = 32 * MiB;

    for (const [pattern, code] of Object.entries({
      ...allocationPatterns,
      ...nativeStringPatterns,
    })) {
      it(`holds ${pattern} to memoryBytes in the host's resident memory, then gives it back`, async () => {
        expect((await getExecutor().run('return "warm"')).value).toBe('warm');
        const baseline = residentBytes();
        const { value: result, peakBytes } = await measurePeak(() =>
          getExecutor().run(code, { limits: { memoryBytes, timeoutMs: 15_000 } }),
        );
        expect(result.error?.kind).toBe('memory');
        expect(
          mebibytes(peakBytes - baseline),
          `peak ${mebibytes(peakBytes)} MiB over a baseline of ${mebibytes(baseline)} MiB`,
        ).toBeLessThanOrEqual(mebibytes(memoryBytes + runnerOverheadBytes));
        expect((await getExecutor().run('return "next"')).value).toBe('next');
        await vi.waitFor(
          () =>
            expect(mebibytes(residentBytes())).toBeLessThanOrEqual(
              mebibytes(baseline + settleSlack),
            ),
          { timeout: 5000, interval: 50 },
        );
      });
    }

    it('holds concurrent runs to N × memoryBytes', async () => {
      // Two owners: one owner's runs share half the pool, so these would take turns.
      const owners = ['first', 'second'];
      await Promise.all(owners.map((owner) => getExecutor().run('return 1', { owner })));
      const baseline = residentBytes();
      const { value: results, peakBytes } = await measurePeak(() =>
        Promise.all(
          owners.map((owner) =>
            getExecutor().run(allocationPatterns['ArrayBuffers']!, {
              owner,
              limits: { memoryBytes, timeoutMs: 15_000 },
            }),
          ),
        ),
      );
      expect(results.map((result) => result.error?.kind)).toEqual(['memory', 'memory']);
      expect(mebibytes(peakBytes - baseline)).toBeLessThanOrEqual(
        mebibytes(2 * (memoryBytes + runnerOverheadBytes)),
      );
    });

    it('keeps tool arguments over maxToolInputBytes inside the sandbox: refused before they are copied out', async () => {
      let called = 0;
      const baseline = residentBytes();
      const { value: result, peakBytes } = await measurePeak(() =>
        getExecutor().run(
          `const big = { data: 'x'.repeat(8 << 20) };
         const refused = [];
         for (let i = 0; i < 40; i++) {
           try { await tools.take(big); } catch (e) { refused.push(e.category); }
         }
         return [refused.length, refused[0]];`,
          {
            functions: { take: async () => ++called },
            limits: { memoryBytes: 32 * MiB, maxToolInputBytes: MiB, timeoutMs: 20_000 },
          },
        ),
      );
      expect(result.value).toEqual([40, 'invalidArguments']);
      expect(called).toBe(0);
      expect(result.toolCalls).toHaveLength(40);
      expect(result.toolCalls[0]).toMatchObject({
        name: 'take',
        outcome: 'error',
        error: {
          category: 'invalidArguments',
          message: expect.stringMatching(/maxToolInputBytes/),
        },
      });
      // 40 copies of 8 MiB would be 320 MiB in transit (copied out, they took the host 91-129 MiB
      // over its baseline on QuickJS and 332-509 MiB on isolated-vm); none may leave the
      // sandbox, so the host grows by the sandbox's own memory (27-35 MiB measured) and no more
      // than half the usual runner overhead on top of it.
      expect(
        mebibytes(peakBytes - baseline),
        `peak ${mebibytes(peakBytes)} MiB over a baseline of ${mebibytes(baseline)} MiB`,
      ).toBeLessThanOrEqual(mebibytes(32 * MiB + runnerOverheadBytes / 2));
    });

    it('keeps a logged string inside the sandbox once the log budget is spent', async () => {
      // A runner replaced after the previous test starts here, not inside the measurement.
      expect((await getExecutor().run('return "warm"')).value).toBe('warm');
      const baseline = residentBytes();
      const { value: result, peakBytes } = await measurePeak(() =>
        getExecutor().run(
          `const line = 'x'.repeat(1 << 20); for (let i = 0; i < 20000; i++) console.log(line); return 'logged';`,
          { limits: { memoryBytes: 16 * MiB, timeoutMs: 15_000 } },
        ),
      );
      expect(result.value).toBe('logged');
      expect(result.logsTruncated).toBe(true);
      expect(mebibytes(peakBytes - baseline)).toBeLessThanOrEqual(
        mebibytes(memoryBytes + runnerOverheadBytes),
      );
    });
  });
}
