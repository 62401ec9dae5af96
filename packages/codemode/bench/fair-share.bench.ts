// Many owners on one sandbox: a polite owner's `return 1` (type-checked) alone, and while a hostile
// owner floods the same process with CPU-bound scripts and type-level bombs. Prints the polite
// owner's p50/p99 quiet and under attack and their ratio (goal: p99 under attack ≤ 2× quiet).
// Printed, never asserted. Run: pnpm --filter @toolwire/codemode run bench:fair-share
import { cpus, loadavg } from 'node:os';
import { typeLevelBomb } from '@toolwire/testing/memory';
import { SandboxBusyError } from '@toolwire/executor';
import { defineTool } from '@toolwire/schema';
import {
  createCodeMode,
  closeDefaultExecutor,
  sharedTypeChecker,
  warmUpSharedSandbox,
  type CodeMode,
} from '../src/index.js';

const runs = Number(process.env.FAIR_SHARE_RUNS ?? 60);
const cityTool = defineTool({
  name: 'get_city',
  description: 'Current city',
  inputSchema: { type: 'object', properties: {} },
  outputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: () => ({ city: 'Lisbon' }),
});

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** Where the slowest polite runs spent their time. */
const slowest: string[] = [];

async function politeRuns(polite: CodeMode): Promise<number[]> {
  const times: number[] = [];
  const breakdowns: Array<[number, string]> = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const result = await polite.run('return 1;', { typecheck: 'error' });
    if (!result.ok) throw new Error(`polite run failed: ${JSON.stringify(result.error)}`);
    const total = performance.now() - started;
    times.push(total);
    const sandbox = result.durationMs - result.typecheckMs - result.typecheckQueuedMs;
    breakdowns.push([
      total,
      `${total.toFixed(0)} ms = check ${result.typecheckMs.toFixed(0)} (waited ${result.typecheckQueuedMs.toFixed(0)}) + run ${sandbox.toFixed(0)} (waited ${result.queuedMs.toFixed(0)})`,
    ]);
  }
  slowest.splice(
    0,
    slowest.length,
    ...breakdowns
      .sort((a, b) => b[0] - a[0])
      .slice(0, 3)
      .map(([, text]) => text),
  );
  return times;
}

/** Keeps `width` requests of one kind in flight until stopped; refusals wait their retryAfterMs. */
function flood(
  width: number,
  send: () => Promise<unknown>,
): { stop: () => Promise<void>; sent: () => number; refused: () => number } {
  let stopped = false;
  let sent = 0;
  let refused = 0;
  const lanes = Array.from({ length: width }, async () => {
    while (!stopped) {
      sent++;
      try {
        await send();
      } catch (error) {
        if (!(error instanceof SandboxBusyError)) throw error;
        refused++;
        await new Promise((resolve) => setTimeout(resolve, error.retryAfterMs));
      }
    }
  });
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(lanes);
    },
    sent: () => sent,
    refused: () => refused,
  };
}

const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
console.log(
  `fair share bench: ${cpus().length} cores, load ${load()}, ${runs} polite runs per phase`,
);

// A gateway's sandbox, warm: both runners of the pool and both checker workers.
warmUpSharedSandbox({ typecheck: true, runners: 2, checkers: 2 });
const checker = sharedTypeChecker();
await checker.ready();
const polite = createCodeMode({ source: [cityTool], owner: 'polite', typecheck: 'error' });
const hostile = createCodeMode({ source: [cityTool], owner: 'hostile', typecheck: 'off' });
// JIT, the checker's first program, the sandbox's first runs.
await politeRuns(polite);
const quiet = await politeRuns(polite);

const cpuBound = flood(4, () =>
  hostile.run('let n = 0; for (;;) n++;', { limits: { timeoutMs: 2000 } }),
);
const bombs = flood(3, () =>
  checker.check(typeLevelBomb, polite.declarations.text, polite.declarations.checkPrelude, {
    owner: 'hostile',
  }),
);
// The flood has the sandbox before the polite owner asks.
await new Promise((resolve) => setTimeout(resolve, 500));
const attacked = await politeRuns(polite);
const slowestUnderAttack = [...slowest];
const loadUnderAttack = load();
await Promise.all([cpuBound.stop(), bombs.stop()]);

const row = (name: string, values: number[]): string =>
  `  ${name.padEnd(14)} p50 ${percentile(values, 50).toFixed(1).padStart(8)} ms   p99 ${percentile(values, 99).toFixed(1).padStart(8)} ms`;
console.log('\npolite owner: `return 1` with the type check, end to end');
console.log(row('quiet', quiet));
console.log(row('under attack', attacked));
const p50 = percentile(attacked, 50) / percentile(quiet, 50);
const p99 = percentile(attacked, 99) / percentile(quiet, 99);
console.log(
  `  ratio          p50 ${p50.toFixed(2)}×   p99 ${p99.toFixed(2)}×   (goal p99 ≤ 2×: ${p99 <= 2 ? 'met' : 'NOT MET'})`,
);
console.log(
  `  hostile owner: ${cpuBound.sent()} CPU-bound scripts (${cpuBound.refused()} refused), ${bombs.sent()} type bombs (${bombs.refused()} refused); load under attack ${loadUnderAttack}`,
);

console.log(`  slowest under attack: ${slowestUnderAttack.join('; ')}`);

await Promise.all([polite.close(), hostile.close()]);
await closeDefaultExecutor();
await checker.close();
