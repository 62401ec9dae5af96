import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { createQuickJSExecutor } from './quickjs-executor.js';

/** The nice value of every thread of this process (Linux /proc), by thread id. */
function niceByThread(): Map<number, number> {
  const out = new Map<number, number>();
  for (const task of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): nice is the 19th field overall.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(task), Number(fields[16]));
    } catch {
      // the thread ended
    }
  }
  return out;
}

const linux = process.platform === 'linux';

describe.skipIf(!linux)(`a long run's priority${linux ? '' : ' (skipped: Linux only)'}`, () => {
  it('lowers the thread of a run busy for long, and gives the runner back at normal priority', async () => {
    const executor = createQuickJSExecutor({ poolSize: 1 });
    const before = new Set([...niceByThread()].filter(([, nice]) => nice !== 0).map(([id]) => id));
    try {
      const stop = new AbortController();
      const spinning = executor.run('for (;;) {}', {
        limits: { timeoutMs: 120_000 },
        signal: stop.signal,
      });
      const lowered = await vi.waitFor(
        () => {
          const found = [...niceByThread()].filter(([id, nice]) => nice > 0 && !before.has(id));
          expect(found).toHaveLength(1);
          return found[0]!;
        },
        { timeout: 20_000, interval: 20 },
      );
      expect(lowered[1]).toBe(10);
      stop.abort();
      expect((await spinning).error?.kind).toBe('cancelled');
      expect((await executor.run('return 1')).value).toBe(1);
      // The runner's thread is back at normal priority (or was replaced).
      expect(niceByThread().get(lowered[0]) ?? 0).toBe(0);
    } finally {
      await executor.close();
    }
  });
});
