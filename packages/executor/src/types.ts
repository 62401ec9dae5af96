import type { ToolErrorCategory } from '@toolwire/schema';
import type { FairShareOptions, FairShareSnapshot } from './fair-share.js';

/** Every limit a run is held to. Sizes are UTF-8 bytes; times are milliseconds. */
export interface ExecutionLimits {
  /** Wall time for the whole run, including time spent awaiting tools. */
  timeoutMs: number;
  /** Heap the script may use (engine limit; the worker or isolate is capped too). */
  memoryBytes: number;
  /** Call stack the script may use. */
  stackBytes: number;
  /** Size of the script itself, checked before it is parsed. */
  maxSourceBytes: number;
  /** Size of the returned value as JSON. */
  maxResultBytes: number;
  /** Console output kept; later output is dropped and the result says it was truncated. */
  maxLogBytes: number;
  maxLogLines: number;
  /** Tool calls per run; one more ends the run with `too-many-tool-calls`. */
  maxToolCalls: number;
  /** Tool calls running at once; further calls wait for a free slot. */
  maxInFlight: number;
  /** Size of one tool call's arguments as JSON. */
  maxToolInputBytes: number;
  /** Size of one tool call's result as JSON. */
  maxToolOutputBytes: number;
}

/** A function the script may call. Arguments and result cross the boundary as JSON. */
export type HostFunction = (args: unknown, context: HostFunctionContext) => unknown;

export interface HostFunctionContext {
  /** Aborted when the run ends (finished, timed out, cancelled) while this call is still running. */
  signal: AbortSignal;
}

export interface RunOptions {
  /**
   * Host functions by name. Every one is reachable as `tools[name](args)`; names that are valid
   * identifiers and not already globals are also plain globals (`fs__read_file(args)`).
   */
  functions?: Record<string, HostFunction>;
  /** JSON values exposed as read-only globals; names must be identifiers. */
  globals?: Record<string, unknown>;
  limits?: Partial<ExecutionLimits>;
  signal?: AbortSignal;
  /**
   * Who the run is for (a gateway passes its token's client name): runs of one owner share the
   * pool with other owners' fairly (see `fairShare` on the executor). Default: one shared owner.
   */
  owner?: string;
}

export type LogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug';

export interface LogEntry {
  level: LogLevel;
  message: string;
}

export interface ToolCallRecord {
  /** 1, 2, 3… in the order the script made the calls. */
  id: number;
  name: string;
  /** The parsed arguments (undefined when the script passed none or they were rejected unparsed). */
  arguments: unknown;
  outcome: 'ok' | 'error' | 'cancelled';
  /** Present when `outcome` is not 'ok'. */
  error?: { message: string; category: ToolErrorCategory };
  durationMs: number;
}

export type ExecutionErrorKind =
  | 'syntax'
  | 'runtime'
  | 'timeout'
  | 'memory'
  | 'stack-overflow'
  | 'source-too-large'
  | 'output-too-large'
  | 'too-many-tool-calls'
  | 'cancelled'
  | 'tool-failed'
  | 'internal';

export interface ExecutionErrorInfo {
  kind: ExecutionErrorKind;
  /** A sentence a model can act on. */
  message: string;
  /** The guest error's name (`TypeError`, `ToolError`, …) when the script threw. */
  name?: string;
  /** 1-based position in the script as given. */
  line?: number;
  column?: number;
  /** Stack frames of the script only (host frames are never shown). */
  stack?: string;
  /** For `tool-failed`: the tool whose error went uncaught, and its error category. */
  tool?: string;
  category?: ToolErrorCategory;
}

export interface RunStats {
  toolCalls: number;
  logBytes: number;
  /** Bytes of the returned value as JSON (0 when nothing was returned). */
  resultBytes: number;
}

export interface RunResult {
  ok: boolean;
  /** The value the script returned (parsed from JSON), when `ok`. */
  value?: unknown;
  logs: LogEntry[];
  /** True when console output went over `maxLogBytes`/`maxLogLines` and the rest was dropped. */
  logsTruncated: boolean;
  toolCalls: ToolCallRecord[];
  error?: ExecutionErrorInfo;
  /** From `run` to the result, the wait for a runner included. */
  durationMs: number;
  /** How long the run waited for its owner's turn and a free runner (not timed by `timeoutMs`). */
  queuedMs: number;
  stats: RunStats;
}

export interface Executor {
  /** 'quickjs', 'isolated-vm', … */
  readonly name: string;
  /**
   * Runs a script. Rejects only for bad options (`InvalidRunOptionsError`), after `close()`, and
   * with `SandboxBusyError` (a rate-limit error with `retryAfterMs`) when the run's owner already
   * has as many runs waiting as its share allows; everything the script does is in the result.
   */
  run(script: string, options?: RunOptions): Promise<RunResult>;
  /**
   * Starts up to `count` runners (default 1) now, so the first runs do not wait for an engine to
   * load; resolves when they are ready. Idle runners never keep the process alive.
   */
  warmUp(count?: number): Promise<void>;
  /** Runs holding a runner and runs waiting for one, per owner. */
  usage(): FairShareSnapshot;
  /** Changes how owners share the pool (a config reload); runs already going keep their runner. */
  setFairShare(share: FairShareOptions): void;
  /** Stops the workers; runs still going end as `cancelled`. */
  close(): Promise<void>;
}
