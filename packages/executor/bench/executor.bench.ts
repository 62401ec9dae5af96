// Side-by-side numbers for every backend and for plain node:vm (no isolation at all: the unsafe
// baseline). Run with `pnpm --filter @toolwire/executor run bench`.
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import vm from 'node:vm';
import {
  createIsolatedVMExecutor,
  createQuickJSExecutor,
  isIsolatedVMAvailable,
} from '../src/index.js';
import type { Executor, HostFunction } from '../src/index.js';

/** What the bench drives: running and closing (the node:vm baseline has no pool to share). */
type BenchExecutor = Pick<Executor, 'name' | 'run' | 'close'>;

interface Backend {
  name: string;
  create: () => Promise<BenchExecutor>;
}

/** node:vm with host functions handed straight to the script. NOT a sandbox: a baseline only. */
async function createNodeVMBaseline(): Promise<BenchExecutor> {
  return {
    name: 'node:vm',
    async run(script, options = {}) {
      const started = performance.now();
      const context = vm.createContext({ tools: options.functions ?? {} });
      const value: unknown = await vm.runInContext(`(async () => {${script}\n})()`, context);
      return {
        ok: true,
        value,
        logs: [],
        logsTruncated: false,
        toolCalls: [],
        durationMs: performance.now() - started,
        queuedMs: 0,
        stats: { toolCalls: 0, logBytes: 0, resultBytes: 0 },
      };
    },
    async close() {},
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

async function expectOk(
  executor: BenchExecutor,
  script: string,
  functions?: Record<string, HostFunction>,
): Promise<void> {
  const result = await executor.run(script, functions ? { functions } : {});
  if (!result.ok) throw new Error(`${executor.name}: ${JSON.stringify(result.error)}`);
}

const noop: HostFunction = async (args) => args;
const sleepy: HostFunction = async (args) => {
  await sleep(50);
  return args;
};
const HOST_CALLS = 200;
const fib = 'function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\nreturn fib(25);';

async function measure(backend: Backend): Promise<Record<string, number>> {
  const colds: number[] = [];
  for (let i = 0; i < 3; i++) {
    colds.push(
      await timed(async () => {
        const executor = await backend.create();
        await expectOk(executor, 'return 1');
        await executor.close();
      }),
    );
  }
  const executor = await backend.create();
  try {
    for (let i = 0; i < 10; i++) await expectOk(executor, 'return 1');
    const warm: number[] = [];
    for (let i = 0; i < 50; i++) warm.push(await timed(() => expectOk(executor, 'return 1')));
    const calls: number[] = [];
    const loop = `for (let i = 0; i < ${HOST_CALLS}; i++) await tools.noop(i);\nreturn 1;`;
    for (let i = 0; i < 7; i++) calls.push(await timed(() => expectOk(executor, loop, { noop })));
    const fanOut: number[] = [];
    const fan = 'return await Promise.all(Array.from({ length: 10 }, (_, i) => tools.sleepy(i)));';
    for (let i = 0; i < 5; i++) fanOut.push(await timed(() => expectOk(executor, fan, { sleepy })));
    const fibs: number[] = [];
    for (let i = 0; i < 5; i++) fibs.push(await timed(() => expectOk(executor, fib)));
    const warmMs = median(warm);
    return {
      cold: median(colds),
      warm: warmMs,
      hostCall: (median(calls) - warmMs) / HOST_CALLS,
      fanOut: median(fanOut),
      fib: median(fibs),
    };
  } finally {
    await executor.close();
  }
}

const backends: Backend[] = [
  { name: 'quickjs', create: async () => createQuickJSExecutor({ poolSize: 1 }) },
];
const ivm = await isIsolatedVMAvailable();
if (ivm.available)
  backends.push({ name: 'isolated-vm', create: () => createIsolatedVMExecutor({ poolSize: 1 }) });
else console.log(`isolated-vm skipped: ${ivm.reason}`);
backends.push({ name: 'node:vm', create: createNodeVMBaseline });

const results = new Map<string, Record<string, number>>();
for (const backend of backends) results.set(backend.name, await measure(backend));

const rows: Array<[string, string]> = [
  ['cold', 'cold start (create + first run), ms'],
  ['warm', 'warm run (`return 1`), p50 ms'],
  ['hostCall', `per host call (${HOST_CALLS} sequential awaits), ms`],
  ['fanOut', 'Promise.all of 10 tools × 50 ms, ms'],
  ['fib', 'fib(25), ms'],
];
const baseline = results.get('node:vm')!;
const names = [...results.keys()];
const header = [
  'metric',
  ...names,
  ...names.filter((n) => n !== 'node:vm').map((n) => `${n} / node:vm`),
];
const lines = rows.map(([key, label]) => [
  label,
  ...names.map((name) => results.get(name)![key]!.toFixed(3)),
  ...names
    .filter((n) => n !== 'node:vm')
    .map((name) => `${(results.get(name)![key]! / baseline[key]!).toFixed(1)}×`),
]);
const widths = header.map((_, column) =>
  Math.max(...[header, ...lines].map((line) => line[column]!.length)),
);
const format = (line: string[]): string =>
  `| ${line.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
console.log(
  `\nNode ${process.versions.node}, ${process.platform}-${process.arch}, ${cpus().length} cores, load average ${loadavg()
    .map((n) => n.toFixed(1))
    .join(' ')} (numbers from a busy machine are noisy)\n`,
);
console.log(format(header));
console.log(format(widths.map((w) => '-'.repeat(w))));
for (const line of lines) console.log(format(line));
const quickjs = results.get('quickjs')!;
console.log(
  `\nTargets for the default backend (quickjs): warm run < 5 ms: ${quickjs.warm! < 5 ? 'MET' : 'MISSED'} (${quickjs.warm!.toFixed(3)} ms); ` +
    `host call < 0.3 ms: ${quickjs.hostCall! < 0.3 ? 'MET' : 'MISSED'} (${quickjs.hostCall!.toFixed(3)} ms)`,
);
console.log(
  'node:vm is not a sandbox (see the security suite); it is here only as the speed floor.',
);
