// One run on a runner it holds, as a small state machine:
//
//   running ──done──────────────▶ draining (calls already sent still running) ──settled──▶ settled
//      │  └────done, no calls─────────────────────────────────────────────────────────────▶ settled
//      └──stop(timeout|cancelled|too-many-tool-calls)──▶ stopping ──done|exit|grace──────▶ settled
//
// `running` and `stopping` hold the runner; `draining` has given it back (the script is over, only
// host-side calls remain, bounded by the same deadline). Every path ends in `settle`, exactly once.
import { LogBudget } from '../log-budget.js';
import type { PreparedScript } from '../prepare-script.js';
import type { HostMessage, RunnerMessage } from '../protocol.js';
import type { RunnerChannel } from '../runner-pool.js';
import type { ExecutionLimits, HostFunction, RunResult } from '../types.js';
import { safeMessage } from './check-run-options.js';
import { exitError, failedResult, resultFromRunner, stopError } from './run-outcome.js';
import type { RunRecord, StopReason } from './run-outcome.js';
import { ToolBridge } from './tool-bridge.js';
import { lowerThreadPriority, restoreThreadPriority } from '../thread-priority.js';

type Phase =
  | { name: 'running' }
  | { name: 'stopping'; reason: StopReason; grace: NodeJS.Timeout }
  | { name: 'draining'; result: RunResult }
  | { name: 'settled' };

export interface ScriptRunParams {
  channel: RunnerChannel;
  script: PreparedScript;
  functions: Record<string, HostFunction>;
  globals: Record<string, unknown>;
  limits: ExecutionLimits;
  record: Omit<RunRecord, 'logs' | 'toolCalls' | 'logBudget'>;
  signal: AbortSignal | undefined;
  /** How long a stopped runner gets to report before it is terminated. */
  stopGraceMs: number;
  /** Gives the runner back (or throws it away) once the run no longer needs it. */
  freeRunner: (discard: boolean) => void;
  /** Whether the pool was closed (a runner that exits then was stopped, not crashed). */
  poolClosed: () => boolean;
}

let nextRunId = 1;
/**
 * A run still holding its runner after this long gives way: its thread's priority is lowered (see
 * thread-priority.ts) until the run ends, so one owner's long CPU-bound scripts do not slow other
 * owners' short runs on the other runners of a small machine.
 */
const backgroundAfterMs = 100;

export class ScriptRun {
  private phase: Phase = { name: 'running' };
  private runnerHeld = true;
  private readonly runId = nextRunId++;
  private readonly record: RunRecord;
  private readonly bridge: ToolBridge;
  private readonly stopBuffer: SharedArrayBuffer | undefined;
  private readonly deadline: NodeJS.Timeout;
  private readonly background: NodeJS.Timeout;
  /** The runner's thread whose priority this run lowered, to restore when it gives it back. */
  private lowered: number | undefined;
  private readonly unsubscribeExit: () => void;
  private readonly onAbort = (): void => this.stop('cancelled');
  private resolve!: (result: RunResult) => void;
  /** Settles with the run's result. */
  readonly result = new Promise<RunResult>((resolve) => (this.resolve = resolve));
  private readonly params: ScriptRunParams;

  constructor(params: ScriptRunParams) {
    this.params = params;
    const { limits, channel } = params;
    this.record = {
      ...params.record,
      logs: [],
      toolCalls: [],
      logBudget: new LogBudget(limits.maxLogBytes, limits.maxLogLines),
    };
    this.bridge = new ToolBridge(params.functions, limits, {
      mayStart: () => this.phase.name === 'running' || this.phase.name === 'draining',
      accepting: () => this.phase.name === 'running',
      reply: (callId, envelope) =>
        this.send({ type: 'tool-result', runId: this.runId, callId, envelope }),
      overLimit: () => this.stop('too-many-tool-calls'),
    });
    this.record.toolCalls = this.bridge.records;
    this.stopBuffer = channel.sharedStopFlag ? new SharedArrayBuffer(4) : undefined;
    params.signal?.addEventListener('abort', this.onAbort, { once: true });
    this.deadline = setTimeout(() => this.stop('timeout'), limits.timeoutMs);
    this.background = setTimeout(() => {
      const { threadId } = channel;
      if (this.runnerHeld && threadId !== undefined && lowerThreadPriority(threadId))
        this.lowered = threadId;
    }, backgroundAfterMs);
    channel.onMessage((message) => this.onMessage(message));
    this.unsubscribeExit = channel.onExit((error) => this.onExit(error));
    channel.setActive(true);
    this.send({
      type: 'run',
      runId: this.runId,
      code: params.script.code,
      config: {
        functions: Object.keys(params.functions),
        globals: params.globals,
        maxResultBytes: limits.maxResultBytes,
        maxToolInputBytes: limits.maxToolInputBytes,
        maxLogBytes: limits.maxLogBytes,
        maxLogLines: limits.maxLogLines,
      },
      limits: {
        timeoutMs: limits.timeoutMs,
        memoryBytes: limits.memoryBytes,
        stackBytes: limits.stackBytes,
        maxLogBytes: limits.maxLogBytes,
        maxLogLines: limits.maxLogLines,
      },
      ...(this.stopBuffer ? { stopFlag: this.stopBuffer } : {}),
    });
  }

  private send(message: HostMessage): void {
    if (this.runnerHeld) this.params.channel.send(message);
  }

  private onMessage(message: RunnerMessage): void {
    if (this.phase.name === 'settled' || !('runId' in message) || message.runId !== this.runId)
      return;
    if (message.type === 'log') {
      if (this.record.logBudget.admit(message.message))
        this.record.logs.push({ level: message.level, message: message.message });
    } else if (message.type === 'call') {
      this.bridge.call(
        {
          callId: message.callId,
          name: message.name,
          args: message.args,
          argsLength: message.argsLength,
        },
        (error) => this.bridgeFailed(error),
      );
    } else if (message.type === 'done') {
      this.bridge.refuse(message.refusedCalls ?? []);
      const recycle = message.recycle === true;
      if (this.phase.name === 'stopping') {
        const info = stopError(this.phase.reason, this.params.limits);
        return this.settle(failedResult(this.record, info), recycle);
      }
      const result = resultFromRunner(
        message.result,
        this.params.script,
        this.params.limits,
        this.record,
      );
      if (this.bridge.pending === 0) return this.settle(result, recycle);
      // Calls already sent are not pretended away: the run waits for them (bounded by the
      // deadline) and reports how they really ended. The runner has nothing left to do.
      this.phase = { name: 'draining', result };
      this.releaseRunner(recycle);
      void this.bridge.settled().then(() => {
        if (this.phase.name === 'draining') this.settle(this.phase.result, false);
      });
    }
  }

  /** The bridge itself failed (never a tool's own error, which the script gets). */
  private bridgeFailed(error: unknown): void {
    this.settle(
      failedResult(this.record, {
        kind: 'internal',
        message: `Tool bridge failed: ${safeMessage(error)}`,
      }),
      true,
    );
  }

  private onExit(error: Error): void {
    if (this.phase.name === 'settled') return;
    const info = exitError(error.message, {
      stopReason: this.phase.name === 'stopping' ? this.phase.reason : undefined,
      poolClosed: this.params.poolClosed(),
      limits: this.params.limits,
    });
    this.settle(failedResult(this.record, info), true);
  }

  /** Ends the run early: asks the runner to stop and gives it `stopGraceMs` to report. */
  stop(reason: StopReason): void {
    const { phase } = this;
    if (phase.name === 'draining') {
      // The script had finished and the run was waiting for calls already sent: it waits no
      // longer than the deadline (or the caller's cancellation).
      return this.settle(phase.result, false, reason);
    }
    if (phase.name !== 'running') return;
    // Stopping is urgent: the runner gets its normal priority back to report within the grace.
    clearTimeout(this.background);
    if (this.lowered !== undefined && restoreThreadPriority(this.lowered)) this.lowered = undefined;
    if (this.stopBuffer) Atomics.store(new Int32Array(this.stopBuffer), 0, 1);
    this.send({ type: 'stop', runId: this.runId });
    this.bridge.abortAll(`run stopped: ${reason}`);
    const grace = setTimeout(
      () => this.settle(failedResult(this.record, stopError(reason, this.params.limits)), true),
      this.params.stopGraceMs,
    );
    this.phase = { name: 'stopping', reason, grace };
  }

  private settle(result: RunResult, discardRunner: boolean, endReason?: StopReason): void {
    const { phase } = this;
    if (phase.name === 'settled') return;
    const reason = endReason ?? (phase.name === 'stopping' ? phase.reason : 'finished');
    if (phase.name === 'stopping') clearTimeout(phase.grace);
    this.phase = { name: 'settled' };
    clearTimeout(this.deadline);
    clearTimeout(this.background);
    this.params.signal?.removeEventListener('abort', this.onAbort);
    this.bridge.end(reason);
    this.releaseRunner(discardRunner);
    this.resolve(result);
  }

  private releaseRunner(discard: boolean): void {
    if (!this.runnerHeld) return;
    this.runnerHeld = false;
    clearTimeout(this.background);
    // A thread whose priority cannot be raised again (an unprivileged process) is replaced.
    if (this.lowered !== undefined && !restoreThreadPriority(this.lowered)) discard = true;
    const { channel } = this.params;
    channel.onMessage(undefined);
    this.unsubscribeExit();
    channel.setActive(false);
    this.params.freeRunner(discard);
  }
}
