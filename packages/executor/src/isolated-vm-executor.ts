import { fork } from 'node:child_process';
import { UnsupportedFeatureError } from '@toolwire/schema';
import { ExecutorClosedError } from './errors.js';
import { resolveLimits } from './limits.js';
import type { ExecutionLimits } from './types.js';
import type { RunnerMessage } from './protocol.js';
import { checkPoolSize, siblingEntry } from './quickjs-executor.js';
import { FairShare } from './fair-share.js';
import type { FairShareOptions } from './fair-share.js';
import { runScript } from './run-script.js';
import { RunnerPool } from './runner-pool.js';
import type { RunnerChannel } from './runner-pool.js';
import type { Executor, RunOptions, RunResult } from './types.js';

export interface IsolatedVMExecutorOptions {
  /** Runner processes in the pool (default: min(2, CPU cores)). */
  poolSize?: number;
  /** Defaults for every run; per-run `limits` override them. */
  limits?: Partial<ExecutionLimits>;
  /**
   * How runs of different owners (`run(…, { owner })`) share the pool: by default an owner runs
   * on at most half the runners (rounded up) and queues at most 16 runs; one more is refused with
   * `SandboxBusyError`. Runs waiting for a runner are served one owner at a time, in turn.
   */
  fairShare?: FairShareOptions;
  /** How long a stopped runner gets to report before its process is killed (default 500 ms). */
  stopGraceMs?: number;
}

/**
 * An executor on V8 isolates (`isolated-vm`, an optional native dependency): JIT speed for
 * compute-heavy scripts. Each runner is a child process started with `--no-node-snapshot`, and
 * each run gets a fresh isolate with `WebAssembly`, `SharedArrayBuffer` and `Atomics` removed.
 * Rejects with `UnsupportedFeatureError` when isolated-vm cannot be loaded on this Node.
 */
export async function createIsolatedVMExecutor(
  options: IsolatedVMExecutorOptions = {},
): Promise<Executor> {
  const poolSize = checkPoolSize(options.poolSize);
  const baseLimits = options.limits;
  resolveLimits(baseLimits);
  const stopGraceMs = options.stopGraceMs ?? 500;
  const share = new FairShare({ capacity: poolSize, resource: 'runs', share: options.fairShare });
  const pool = new RunnerPool(poolSize, spawnIsolatedVMRunner);
  try {
    await pool.warm(1);
  } catch (error) {
    await pool.close();
    if (UnsupportedFeatureError.isInstance(error)) throw error;
    throw new UnsupportedFeatureError({
      feature: 'isolated-vm',
      message: `The isolated-vm executor could not start: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
  let closed = false;
  return {
    name: 'isolated-vm',
    async run(script: string, runOptions: RunOptions = {}): Promise<RunResult> {
      if (closed) throw new ExecutorClosedError({ executor: 'isolated-vm' });
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

/** Whether isolated-vm loads and can create an isolate on this Node (starts and stops one runner). */
export async function isIsolatedVMAvailable(): Promise<
  { available: true } | { available: false; reason: string }
> {
  const channel = spawnIsolatedVMRunner();
  try {
    await channel.ready;
    return { available: true };
  } catch (error) {
    return { available: false, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await channel.terminate();
  }
}

function spawnIsolatedVMRunner(): RunnerChannel {
  const child = fork(siblingEntry('isolated-vm-runner'), [], {
    execArgv: ['--no-node-snapshot'],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderrTail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-2000);
  });
  let listener: ((message: RunnerMessage) => void) | undefined;
  const exitListeners = new Set<(error: Error) => void>();
  let exited = false;
  let active = false;
  const idle = (): void => {
    child.unref();
    child.channel?.unref();
    (child.stderr as { unref?: () => void } | null)?.unref?.();
  };
  const ready = new Promise<void>((resolve, reject) => {
    child.on('message', (message: RunnerMessage | { type: 'unavailable'; message: string }) => {
      if (message.type === 'ready') {
        if (!active) idle();
        resolve();
      } else if (message.type === 'unavailable') {
        reject(
          new UnsupportedFeatureError({
            feature: 'isolated-vm',
            message: `isolated-vm cannot be used on Node ${process.versions.node}: ${message.message}`,
          }),
        );
      } else listener?.(message);
    });
    child.once('error', (error) => {
      reject(error);
      if (!exited) {
        exited = true;
        for (const exitListener of exitListeners) exitListener(error);
      }
    });
    child.once('exit', (code, signal) => {
      const error = new Error(
        `isolated-vm runner exited (${signal ?? `code ${code}`})${stderrTail ? `: ${stderrTail.trim()}` : ''}`,
      );
      reject(error);
      if (!exited) {
        exited = true;
        for (const exitListener of exitListeners) exitListener(error);
      }
    });
  });
  return {
    ready,
    sharedStopFlag: false,
    send: (message) => {
      if (child.connected) child.send(message);
    },
    onMessage: (next) => {
      listener = next;
    },
    onExit: (next) => {
      exitListeners.add(next);
      return () => exitListeners.delete(next);
    },
    setActive: (next) => {
      active = next;
      if (next) {
        child.ref();
        child.channel?.ref();
      } else idle();
    },
    terminate: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      // An idle runner is unref'd; without this the host could exit while waiting for it.
      child.ref();
      child.kill('SIGKILL');
      await gone;
    },
  };
}
