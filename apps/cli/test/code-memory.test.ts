// `--memory-mb` seen from outside: the real peak resident memory of the `toolwire` process (its
// kernel high-water mark, VmHWM, threads included) per allocation pattern, against the same
// process running a trivial script.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  allocationPatterns,
  hostMemorySkipNote,
  mebibytes,
  runHostMemoryTests,
  runnerOverheadBytes,
} from '@toolwire/testing/memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, runToolwire, type Sandbox } from './helpers.js';

const MiB = 1024 * 1024;
let sandbox: Sandbox;
let config: string;
beforeAll(() => {
  sandbox = createSandbox();
  // Native tools only: no MCP server processes next to the one being measured.
  config = join(sandbox.home, 'native.json');
  writeFileSync(config, JSON.stringify({ nativeTools: ['hash'] }));
});
afterAll(() => sandbox.cleanup());

/** Runs `toolwire code run` on `code` and returns its result with the process's peak RSS. */
async function runMeasured(code: string, memoryMb: number) {
  const file = join(sandbox.home, `script-${memoryMb}-${Math.random().toString(36).slice(2)}.js`);
  writeFileSync(file, code);
  let pid: number | undefined;
  let peak = 0;
  const sample = (): void => {
    if (pid === undefined) return;
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const match = /^VmHWM:\s+(\d+) kB/m.exec(status);
      if (match) peak = Math.max(peak, Number(match[1]) * 1024);
    } catch {
      // exited
    }
  };
  const timer = setInterval(sample, 5);
  try {
    const result = await runToolwire(
      [
        '--config',
        config,
        'code',
        'run',
        '--typecheck',
        'off',
        '--memory-mb',
        String(memoryMb),
        '--timeout-ms',
        '20000',
        '--json',
        file,
      ],
      { env: sandbox.env, timeoutMs: 40_000, onSpawn: (spawned) => (pid = spawned) },
    );
    return { result, peakBytes: peak };
  } finally {
    clearInterval(timer);
  }
}

describe.skipIf(!runHostMemoryTests)(
  `toolwire code run --memory-mb (peak RSS of the process)${hostMemorySkipNote}`,
  () => {
    const sizes = [16, 64];
    const baselines = new Map<number, number>();
    beforeAll(async () => {
      for (const { result } of await Promise.all(
        sizes.map((memoryMb) => runMeasured('return "baseline";', memoryMb)),
      )) {
        expect(result.code).toBe(0);
      }
      // Measured again one at a time: the first start also warms the file cache.
      for (const memoryMb of sizes)
        baselines.set(memoryMb, (await runMeasured('return "baseline";', memoryMb)).peakBytes);
    }, 60_000);

    for (const [pattern, code] of Object.entries(allocationPatterns)) {
      it(`ends ${pattern} as a memory error within --memory-mb 16 and 64 + the runner overhead`, async () => {
        // The two sizes run side by side: each measurement is of its own process.
        const runs = await Promise.all(sizes.map((memoryMb) => runMeasured(code, memoryMb)));
        sizes.forEach((memoryMb, index) => {
          const { result, peakBytes } = runs[index]!;
          expect(result.code).toBe(1);
          expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, error: { kind: 'memory' } });
          const baseline = baselines.get(memoryMb)!;
          expect(
            mebibytes(peakBytes - baseline),
            `--memory-mb ${memoryMb}: peak ${mebibytes(peakBytes)} MiB, baseline ${mebibytes(baseline)} MiB`,
          ).toBeLessThanOrEqual(mebibytes(memoryMb * MiB + runnerOverheadBytes));
        });
      }, 60_000);
    }
  },
);
