// Messages between the host (the Node thread that called `run`) and a runner (a worker thread or
// a child process that owns the engine). Values cross as JSON strings only.
import type { GuestError, HarnessConfig } from './guest-harness.js';
import type { LogLevel } from './types.js';

interface RunnerLimits {
  timeoutMs: number;
  memoryBytes: number;
  stackBytes: number;
  maxLogBytes: number;
  maxLogLines: number;
}

export type HostMessage =
  | {
      type: 'run';
      runId: number;
      code: string;
      config: HarnessConfig;
      limits: RunnerLimits;
      /** Int32Array over it: non-zero asks the engine to stop (worker runners only). */
      stopFlag?: SharedArrayBuffer;
    }
  | { type: 'tool-result'; runId: number; callId: number; envelope: string }
  | { type: 'stop'; runId: number };

/** Why a runner's engine stopped without the guest finishing. */
export type EngineStop = 'interrupted' | 'memory' | 'stack-overflow' | 'syntax' | 'internal';

export type RunnerOutcome =
  { type: 'guest'; outcome: string } | { type: 'engine'; reason: EngineStop; error: GuestError };

/** A call the guest made, held by the runner until the engine goes idle. */
export type OutboxCall = Omit<Extract<RunnerMessage, { type: 'call' }>, 'type' | 'runId'>;

export type RunnerMessage =
  /** `threadId`: the runner's thread as the kernel knows it (Linux), for its priority. */
  | { type: 'ready'; threadId?: number }
  | {
      type: 'call';
      runId: number;
      callId: number;
      name: string;
      args: string | undefined;
      /** Set instead of `args` when they were over maxToolInputBytes: their length as JSON. */
      argsLength?: number;
    }
  | { type: 'log'; runId: number; level: LogLevel; message: string }
  | {
      type: 'done';
      runId: number;
      result: RunnerOutcome;
      recycle?: boolean;
      /** Calls the script made in the turn in which it finished: never sent to a tool. */
      refusedCalls?: Array<{ name: string; args: string | undefined }>;
    };
