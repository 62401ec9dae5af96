import type { AnyTool, ToolSource } from '@toolwire/schema';
import type {
  ExecutionErrorInfo,
  ExecutionLimits,
  Executor,
  LogEntry,
  ToolCallRecord,
} from '@toolwire/executor';
import type { CodeDiagnostic } from './code-diagnostic.js';
import type { Declarations, GenerateDeclarationsOptions } from './declarations.js';
import type { CodeModeToolSource } from './tool-source.js';

export type ToolMode = 'direct' | 'code' | 'both';
export type TypecheckMode = 'off' | 'warn' | 'error';

/** One result of `search()` in the code. */
export interface ToolSearchResult {
  /** The tool's name (as the source lists it). */
  name: string;
  /** The function the code calls. */
  identifier: string;
  /** The description's first sentence or so (`describe()` has all of it). */
  description: string;
  /** Its declaration without documentation (`declare function …`). */
  signature: string;
}

export interface CodeModeOptions {
  /** A registry (`@toolwire/mcp`), any `CodeModeToolSource`, or plain tools with `execute`. */
  source: CodeModeToolSource | readonly AnyTool[];
  /** Tools kept as direct tools only, beside `execute_code` (images, tools a model was trained on). */
  excludedTools?: readonly string[];
  /** Per tool: `code` (default: only inside `execute_code`), `direct` (only as its own tool) or `both`. */
  toolModes?: Readonly<Record<string, ToolMode>>;
  /**
   * Runs the code. Default: one QuickJS executor shared by every code mode of the process, made on
   * first use and closed when the last code mode using it is closed. Code modes made per request
   * (a server's) therefore share one worker pool instead of each starting its own.
   */
  executor?: Executor;
  /** Type-check the code before running it: `error` (default) refuses to run code with type errors. */
  typecheck?: TypecheckMode;
  /** Sandbox limits for each run (see `@toolwire/executor`). */
  limits?: Partial<ExecutionLimits>;
  /** Timeout of each tool call made by the code (the source's default when absent). */
  toolTimeoutMs?: number;
  /** How declarations are written (description length, depth, doc comments). */
  declarations?: GenerateDeclarationsOptions;
  /**
   * The most the `execute_code` description may cost (estimated tokens, default 1300): with
   * `declarations.detail: 'auto'` it declares as many tools as fit, the rest are found with
   * `search()` in the code. An explicit detail level declares every tool whatever it costs.
   */
  descriptionBudgetTokens?: number;
  /** Tools declared in the description first, before the others (names as the source lists them). */
  pinnedTools?: readonly string[];
  /** Name of the code tool (default `execute_code`). */
  toolName?: string;
  /**
   * Whose code this code mode runs (a gateway passes its token's client name): runs and type
   * checks of one owner share the sandbox fairly with other owners'. Default: one shared owner.
   */
  owner?: string;
}

export interface RunCodeOptions {
  typecheck?: TypecheckMode;
  limits?: Partial<ExecutionLimits>;
  signal?: AbortSignal;
  /**
   * Where this run's tool calls go instead of the code mode's source: the same tools as one caller
   * may use them (the forwarder's `context.tools`, which calls as that caller). The code is still
   * checked against the code mode's declarations.
   */
  tools?: ToolSource;
  /** Whose run this is, over the code mode's `owner`. */
  owner?: string;
}

export type CodeRunErrorKind = ExecutionErrorInfo['kind'] | 'typecheck';

/** What running a script gives: console output, the returned value and every tool call made. */
export interface CodeRunResult {
  ok: boolean;
  value?: unknown;
  logs: LogEntry[];
  logsTruncated: boolean;
  /** Tool calls in the order made, by tool name (not the identifier the script used). */
  toolCalls: ToolCallRecord[];
  /** Type errors found before running (with `typecheck: 'warn'` the code ran anyway). */
  diagnostics: CodeDiagnostic[];
  error?: {
    kind: CodeRunErrorKind;
    message: string;
    line?: number;
    column?: number;
    tool?: string;
  };
  durationMs: number;
  /** Time spent type-checking (0 when off), not counting the wait for a checker. */
  typecheckMs: number;
  /** Time the type check waited for its owner's turn and a free checker (0 when off). */
  typecheckQueuedMs: number;
  /** Time the run waited for its owner's turn and a free sandbox runner. */
  queuedMs: number;
}

export interface CodeMode {
  /** What to give the model: `execute_code` first, then the direct tools (current tool list). */
  readonly tools: AnyTool[];
  readonly executeCodeTool: AnyTool;
  /** Tools reachable only directly (excluded or `direct`), and those offered both ways. */
  readonly directTools: AnyTool[];
  /** The declarations of every code tool, as the model's code is type-checked against them. */
  readonly declarations: Declarations;
  /** The tools the `execute_code` description declares; the others are reached through `search()`. */
  readonly listedTools: readonly string[];
  /** Tools matching a query, best first: what `search()` in the code returns. */
  search(query: string, options?: { limit?: number }): ToolSearchResult[];
  /**
   * Type-checks, strips and runs a script against the code-mode tools. Rejects with
   * `SandboxBusyError` (a rate-limit error with `retryAfterMs`) when the owner already has as
   * many runs or checks waiting as its share allows.
   */
  run(code: string, options?: RunCodeOptions): Promise<CodeRunResult>;
  /**
   * Re-reads the source's tools and regenerates the declarations. Happens by itself when the
   * source has `onToolsChanged` (a registry does); call it after changing a plain source.
   */
  refresh(): void;
  /**
   * Does the one-time work of the first type check now (loading TypeScript, parsing its lib files
   * and the declarations), so the model's first `execute_code` call does not wait for it.
   */
  warmUp(): void;
  /**
   * Stops following the source's tool changes and, when this was the last code mode using the
   * shared default executor, closes it. A given `executor` is left to its owner.
   */
  close(): Promise<void>;
}
