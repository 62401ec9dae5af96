import { WaitAbortedError } from './errors.js';
import type { FairShare, FairShareGrant } from './fair-share.js';
import { resolveLimits } from './limits.js';
import { LogBudget } from './log-budget.js';
import { prepareScript } from './prepare-script.js';
import type { PooledRunner, RunnerPool } from './runner-pool.js';
import { checkRunOptions } from './run/check-run-options.js';
import { cancelledError, failedResult } from './run/run-outcome.js';
import type { RunRecord } from './run/run-outcome.js';
import { ScriptRun } from './run/script-run.js';
import type { ExecutionLimits, RunOptions, RunResult } from './types.js';

export interface RunScriptParams {
  pool: RunnerPool;
  /** Who may use the pool's runners when (one share per `options.owner`). */
  share: FairShare;
  script: string;
  options: RunOptions;
  /** Limits set on the executor, below the per-run ones. */
  baseLimits: Partial<ExecutionLimits> | undefined;
  /** How long a stopped runner gets to report before it is terminated. */
  stopGraceMs: number;
}

/**
 * Runs one script: checks it, waits for its owner's turn and a runner, and hands both to a
 * `ScriptRun`. Throws for bad options and, when the owner's queue is full, `SandboxBusyError`.
 */
export async function runScript(params: RunScriptParams): Promise<RunResult> {
  const startedAt = performance.now();
  const { options } = params;
  const { functions, globals, owner } = checkRunOptions(params.script, options);
  const limits = resolveLimits(params.baseLimits, options.limits);
  const record = (queuedMs: number): RunRecord => ({
    startedAt,
    queuedMs,
    logs: [],
    toolCalls: [],
    logBudget: new LogBudget(limits.maxLogBytes, limits.maxLogLines),
  });

  if (options.signal?.aborted) return failedResult(record(0), cancelledError());
  const prepared = prepareScript(params.script, limits.maxSourceBytes);
  if (!prepared.ok) return failedResult(record(0), prepared.error);

  let grant: FairShareGrant;
  let runner: PooledRunner;
  try {
    grant = await params.share.acquire(owner, options.signal);
  } catch (error) {
    if (error instanceof WaitAbortedError)
      return failedResult(record(performance.now() - startedAt), cancelledError());
    throw error;
  }
  try {
    runner = await params.pool.acquire(options.signal);
  } catch (error) {
    grant.release();
    if (error instanceof WaitAbortedError)
      return failedResult(record(performance.now() - startedAt), cancelledError());
    throw error;
  }
  const queuedMs = performance.now() - startedAt;
  if (options.signal?.aborted) {
    params.pool.release(runner);
    grant.release();
    return failedResult(record(queuedMs), cancelledError());
  }
  const run = new ScriptRun({
    channel: runner.channel,
    script: prepared.script,
    functions,
    globals,
    limits,
    record: { startedAt, queuedMs },
    signal: options.signal,
    stopGraceMs: params.stopGraceMs,
    freeRunner: (discard) => {
      if (discard) {
        // The owner whose run cost the pool its runner keeps its share until the replacement is
        // ready, rather than taking another owner's idle runner meanwhile.
        void params.pool.discard(runner).finally(() => grant.release());
      } else {
        params.pool.release(runner);
        grant.release();
      }
    },
    poolClosed: () => params.pool.isClosed,
  });
  return run.result;
}
