import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ExecutorClosedError, InvalidRunOptionsError } from './errors.js';
import { resolveLimits } from './limits.js';
import type { ExecutionLimits } from './types.js';
import type { RunnerMessage } from './protocol.js';
import { FairShare } from './fair-share.js';
import type { FairShareOptions } from './fair-share.js';
import { runScript } from './run-script.js';
import { RunnerPool } from './runner-pool.js';
import type { RunnerChannel } from './runner-pool.js';
import type { Executor, RunOptions, RunResult } from './types.js';

export interface QuickJSExecutorOptions {
  /** Worker threads in the pool (default: min(2, CPU cores)). Runs beyond it wait in a queue. */
  poolSize?: number;
  /** Defaults for every run; per-run `limits` override them. */
  limits?: Partial<ExecutionLimits>;
  /**
   * How runs of different owners (`run(…, { owner })`) share the pool: by default an owner runs
   * on at most half the runners (rounded up) and queues at most 16 runs; one more is refused with
   * `SandboxBusyError`. Runs waiting for a runner are served one owner at a time, in turn.
   */
  fairShare?: FairShareOptions;
  /** How long a stopped worker gets to report before it is terminated and replaced (default 250 ms). */
  stopGraceMs?: number;
}

/**
 * The default executor: QuickJS compiled to WebAssembly, in a pool of worker threads. Each run gets
 * a fresh QuickJS runtime, so nothing a script does survives into the next run, and a busy script
 * never blocks the host's event loop.
 */
export function createQuickJSExecutor(options: QuickJSExecutorOptions = {}): Executor {
  const poolSize = checkPoolSize(options.poolSize);
  const baseLimits = options.limits;
  resolveLimits(baseLimits);
  const stopGraceMs = options.stopGraceMs ?? 250;
  const pool = new RunnerPool(poolSize, () => spawnQuickJSWorker(resolveLimits(baseLimits)));
  const share = new FairShare({ capacity: poolSize, resource: 'runs', share: options.fairShare });
  let closed = false;
  return {
    name: 'quickjs',
    async run(script: string, runOptions: RunOptions = {}): Promise<RunResult> {
      if (closed) throw new ExecutorClosedError({ executor: 'quickjs' });
      return runScript({ pool, share, script, options: runOptions, baseLimits, stopGraceMs });
    },
    warmUp: (count = 1) => pool.warm(count),
    usage: () => share.snapshot(),
    setFairShare: (next) => share.configure(next),
    async close(): Promise<void> {
      closed = true;
      share.close();
      await pool.close();
    },
  };
}

export function checkPoolSize(poolSize: number | undefined): number {
  if (poolSize === undefined) return Math.max(1, Math.min(2, availableParallelism()));
  if (!Number.isSafeInteger(poolSize) || poolSize < 1) {
    throw new InvalidRunOptionsError({
      path: 'poolSize',
      message: `expected an integer >= 1, got ${String(poolSize)}`,
    });
  }
  return poolSize;
}

/**
 * In the published package this module is bundled into dist/index.js next to dist/quickjs-worker.js;
 * from source (tests, the `@toolwire/source` condition) it is src/quickjs-executor.ts next to
 * src/quickjs-worker.ts, which Node runs through its built-in type stripping.
 */
export function siblingEntry(base: string): URL {
  const fromSource = import.meta.url.endsWith('.ts');
  return new URL(`./${base}${fromSource ? '.ts' : '.js'}`, import.meta.url);
}

function spawnQuickJSWorker(limits: ExecutionLimits): RunnerChannel {
  // The V8 heap of the worker holds no guest data (that lives in the engine's WebAssembly memory,
  // bounded by memoryBytes): only the glue and the strings crossing the boundary.
  const largestTransferMb = Math.ceil(
    Math.max(limits.maxToolInputBytes, limits.maxToolOutputBytes, limits.maxResultBytes) /
      1024 /
      1024,
  );
  const worker = new Worker(siblingEntry('quickjs-worker'), {
    // Bounded so strings in transit (a tool call's arguments, a result) cannot take the host down.
    // The host's flags (test runners' loaders, inspectors) are of no use to the engine thread and
    // slow its start; Node strips types from the .ts entry by itself.
    execArgv: [],
    resourceLimits: {
      maxOldGenerationSizeMb: 32 + 3 * largestTransferMb,
      maxYoungGenerationSizeMb: 8,
    },
    workerData: { memoryBytes: limits.memoryBytes },
    // Not piped: piped worker stdio keeps the host process alive after the last run. The worker
    // silences its own stdout/stderr (engine abort noise) instead.
    stdout: false,
    stderr: false,
  });
  let listener: ((message: RunnerMessage) => void) | undefined;
  const exitListeners = new Set<(error: Error) => void>();
  let exited = false;
  let active = false;
  let threadId: number | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (message: RunnerMessage) => {
      if (message.type === 'ready') {
        threadId = message.threadId;
        // Idle workers must not keep the host process alive.
        if (!active) worker.unref();
        resolve();
      } else listener?.(message);
    });
    worker.once('error', (error) => {
      reject(error);
      if (!exited) {
        exited = true;
        for (const exitListener of exitListeners) exitListener(error);
      }
    });
    worker.once('exit', (code) => {
      const error = new Error(`worker exited with code ${code}`);
      reject(error);
      if (!exited) {
        exited = true;
        for (const exitListener of exitListeners) exitListener(error);
      }
    });
  });
  return {
    ready,
    sharedStopFlag: true,
    get threadId() {
      return threadId;
    },
    send: (message) => worker.postMessage(message),
    onMessage: (next) => {
      listener = next;
    },
    onExit: (next) => {
      exitListeners.add(next);
      return () => exitListeners.delete(next);
    },
    setActive: (next) => {
      active = next;
      if (next) worker.ref();
      else worker.unref();
    },
    terminate: async () => {
      await worker.terminate();
    },
  };
}
