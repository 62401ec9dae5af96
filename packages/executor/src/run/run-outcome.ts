// Turning what a runner reported (or how it died) into a `RunResult`: error kinds, messages a
// model can act on, positions in the script as given.
import type { ToolErrorCategory } from '@toolwire/schema';
import type { GuestError } from '../guest-harness.js';
import type { LogBudget } from '../log-budget.js';
import { originalColumn } from '../prepare-script.js';
import type { PreparedScript } from '../prepare-script.js';
import type { RunnerOutcome } from '../protocol.js';
import type {
  ExecutionErrorInfo,
  ExecutionLimits,
  LogEntry,
  RunResult,
  ToolCallRecord,
} from '../types.js';

/** Why the host stopped a run before the script ended. */
export type StopReason = 'timeout' | 'cancelled' | 'too-many-tool-calls';

/** What a finished run has collected, whatever its outcome. */
export interface RunRecord {
  startedAt: number;
  queuedMs: number;
  logs: LogEntry[];
  toolCalls: ToolCallRecord[];
  logBudget: LogBudget;
}

const maxStackFrames = 10;
/** Messages the engines use when an allocation fails. */
const memoryMessages =
  /out of memory|string too long|Array buffer allocation failed|Invalid array length|Invalid string length/i;
/**
 * How a runner that died of memory says so: V8 giving up on a heap ("Last few GCs … last resort",
 * "Reached heap limit"), a worker at its resource limit (ERR_WORKER_OUT_OF_MEMORY), or the
 * isolated-vm runner's own resident-memory watch ("out of memory").
 */
const memoryExitMessages = /out of memory|ERR_WORKER_OUT_OF_MEMORY|last resort|Reached heap limit/i;

/** The run as a failure. */
export function failedResult(record: RunRecord, error: ExecutionErrorInfo): RunResult {
  return buildResult(record, { ok: false, error, resultBytes: 0 });
}

/** Why a runner that exited in the middle of a run did. */
export function exitError(
  message: string,
  context: { stopReason: StopReason | undefined; poolClosed: boolean; limits: ExecutionLimits },
): ExecutionErrorInfo {
  if (context.stopReason) return stopError(context.stopReason, context.limits);
  if (context.poolClosed)
    return { kind: 'cancelled', message: 'The executor was closed before the run finished.' };
  if (memoryExitMessages.test(message)) return memoryError(context.limits);
  return { kind: 'internal', message: `The sandbox runner exited unexpectedly: ${message}` };
}

/** The result of a run whose script ended (returned, threw) or whose engine stopped it. */
export function resultFromRunner(
  outcome: RunnerOutcome,
  script: PreparedScript,
  limits: ExecutionLimits,
  record: RunRecord,
): RunResult {
  if (outcome.type === 'engine') {
    const { reason, error } = outcome;
    const info: ExecutionErrorInfo =
      reason === 'interrupted'
        ? stopError('timeout', limits)
        : reason === 'memory'
          ? memoryError(limits)
          : reason === 'stack-overflow'
            ? stackError(limits, error, script)
            : reason === 'syntax'
              ? {
                  ...locate(error, script),
                  kind: 'syntax',
                  name: 'SyntaxError',
                  message: `SyntaxError: ${error.message}`,
                }
              : {
                  kind: 'internal',
                  message: `The sandbox failed: ${error.name}: ${error.message}`,
                };
    return failedResult(record, info);
  }
  const text = outcome.outcome;
  if (text.startsWith('1')) {
    const json = text.slice(1);
    const bytes = Buffer.byteLength(json, 'utf8');
    if (bytes > limits.maxResultBytes) {
      return buildResult(record, {
        ok: false,
        error: outputError(bytes, limits),
        resultBytes: bytes,
      });
    }
    return buildResult(record, {
      ok: true,
      value: json === '' ? undefined : JSON.parse(json),
      resultBytes: bytes,
    });
  }
  const error = JSON.parse(text.slice(1)) as GuestError;
  return failedResult(record, classifyGuestError(error, script, limits));
}

function classifyGuestError(
  error: GuestError,
  script: PreparedScript,
  limits: ExecutionLimits,
): ExecutionErrorInfo {
  if (error.resultProblem === 'too-large')
    return outputError(error.resultBytes ?? limits.maxResultBytes + 1, limits);
  if (error.resultProblem === 'not-json') {
    return {
      kind: 'runtime',
      name: error.name,
      message: `The returned value cannot be converted to JSON (${error.name}: ${error.message}). Return plain data: objects, arrays, strings, numbers, booleans or null.`,
    };
  }
  if (error.tool !== undefined) {
    const category = (error.category ?? 'unknown') as ToolErrorCategory;
    return {
      ...locate(error, script),
      kind: 'tool-failed',
      name: 'ToolError',
      tool: error.tool,
      category,
      message: `Tool ${error.tool} failed (${category}): ${error.message}. The error was not caught; use try/catch around the call to handle it.`,
    };
  }
  if (error.name === 'InternalError' && error.message === 'interrupted')
    return stopError('timeout', limits);
  if (memoryMessages.test(error.message)) return memoryError(limits);
  if (/stack overflow|Maximum call stack size exceeded/i.test(error.message))
    return stackError(limits, error, script);
  // QuickJS throws null when it cannot even allocate the out-of-memory error, and by the time the
  // harness sees it the memory is freed again, so the cause cannot be checked: say both.
  const thrown =
    error.thrown === 'null'
      ? `Uncaught null (throw an Error object to get a stack; the engine also throws null when the script runs out of memory, limit ${Math.round(limits.memoryBytes / 1024 / 1024)} MB, so keep less data in memory at once if the script builds large values)`
      : error.thrown === 'primitive' || error.thrown === 'undefined'
        ? `Uncaught ${error.message} (throw an Error object to get a stack)`
        : `${error.name}: ${error.message}`;
  const located = locate(error, script);
  return {
    ...located,
    kind: 'runtime',
    name: error.name,
    message: located.line !== undefined ? `${thrown} (line ${located.line})` : thrown,
  };
}

/** Line and column in the script as given, and a stack of script frames only. */
function locate(
  error: GuestError,
  script: PreparedScript,
): Pick<ExecutionErrorInfo, 'line' | 'column' | 'stack'> {
  if (!error.stack) return {};
  const frames = error.stack.split('\n').filter((line) => line.includes('script.js'));
  const match = /script\.js:(\d+)(?::(\d+))?/.exec(frames[0] ?? '');
  const out: Pick<ExecutionErrorInfo, 'line' | 'column' | 'stack'> = {};
  if (frames.length > 0) {
    const shown = frames
      .slice(0, maxStackFrames)
      .map((frame) => frame.replace(/\(?[^\s(]*script\.js:/, '(script.js:'));
    if (frames.length > maxStackFrames)
      shown.push(`    … ${frames.length - maxStackFrames} more frames`);
    out.stack = shown.join('\n');
  }
  if (match) {
    out.line = Number(match[1]);
    if (match[2] !== undefined) out.column = originalColumn(script, out.line, Number(match[2]));
  }
  return out;
}

export function stopError(reason: StopReason, limits: ExecutionLimits): ExecutionErrorInfo {
  if (reason === 'timeout') {
    return {
      kind: 'timeout',
      message: `The script did not finish within ${limits.timeoutMs} ms (timeoutMs) and was stopped. Do less work per run, avoid endless loops and very large data, and check that every awaited tool call can finish.`,
    };
  }
  if (reason === 'too-many-tool-calls') {
    return {
      kind: 'too-many-tool-calls',
      message: `The script tried to make more than ${limits.maxToolCalls} tool calls (maxToolCalls) and was stopped. Make fewer, larger calls.`,
    };
  }
  return cancelledError();
}

export function cancelledError(): ExecutionErrorInfo {
  return { kind: 'cancelled', message: 'The run was cancelled by the caller before it finished.' };
}

function memoryError(limits: ExecutionLimits): ExecutionErrorInfo {
  return {
    kind: 'memory',
    message: `The script ran out of memory (limit ${Math.round(limits.memoryBytes / 1024 / 1024)} MB, memoryBytes). Keep less data in memory at once.`,
  };
}

function stackError(
  limits: ExecutionLimits,
  error: GuestError,
  script: PreparedScript,
): ExecutionErrorInfo {
  return {
    ...locate(error, script),
    kind: 'stack-overflow',
    name: error.name,
    message: `Maximum call stack size exceeded (stack limit ${limits.stackBytes} bytes, stackBytes). Replace deep recursion with a loop.`,
  };
}

function outputError(bytes: number, limits: ExecutionLimits): ExecutionErrorInfo {
  return {
    kind: 'output-too-large',
    message: `The returned value is ${bytes} bytes as JSON; the limit is ${limits.maxResultBytes} bytes (maxResultBytes). Return a summary or a slice instead.`,
  };
}

function buildResult(
  record: RunRecord,
  parts: { ok: boolean; value?: unknown; error?: ExecutionErrorInfo; resultBytes: number },
): RunResult {
  const { logBudget } = record;
  const logs = logBudget.truncated
    ? [
        ...record.logs,
        {
          level: 'warn' as const,
          message: `[console output truncated: over ${logBudget.bytes} bytes / ${logBudget.lines} lines kept (maxLogBytes / maxLogLines)]`,
        },
      ]
    : record.logs;
  return {
    ok: parts.ok,
    ...(parts.ok && parts.value !== undefined ? { value: parts.value } : {}),
    ...(parts.error ? { error: parts.error } : {}),
    logs,
    logsTruncated: logBudget.truncated,
    toolCalls: record.toolCalls,
    durationMs: performance.now() - record.startedAt,
    queuedMs: record.queuedMs,
    stats: {
      toolCalls: record.toolCalls.length,
      logBytes: logBudget.bytes,
      resultBytes: parts.resultBytes,
    },
  };
}
