import { errorMessage, toolFailureFromError } from '@toolwire/schema';
import type { ToolErrorCategory } from '@toolwire/schema';
import { InvalidRunOptionsError } from './errors.js';
import type { GuestError } from './guest-harness.js';
import { resolveLimits } from './limits.js';
import type { ExecutionLimits } from './types.js';
import { LogBudget } from './log-budget.js';
import { originalColumn, prepareScript } from './prepare-script.js';
import type { PreparedScript } from './prepare-script.js';
import type { RunnerMessage, RunnerOutcome } from './protocol.js';
import { AcquireAbortedError } from './runner-pool.js';
import type { RunnerPool } from './runner-pool.js';
import type {
  ExecutionErrorInfo,
  HostFunction,
  LogEntry,
  RunOptions,
  RunResult,
  ToolCallRecord,
} from './types.js';

/** Names that would turn `tools` into something else (a thenable, a prototype) if they were tools. */
const forbiddenToolNames = new Set(['__proto__', 'constructor', 'prototype', 'then']);
const reservedGlobalNames = new Set([
  'tools',
  'console',
  'globalThis',
  'undefined',
  'NaN',
  'Infinity',
  'eval',
]);
const identifier = /^[A-Za-z_$][\w$]*$/;

export interface RunScriptParams {
  pool: RunnerPool;
  script: string;
  options: RunOptions;
  /** Limits set on the executor, below the per-run ones. */
  baseLimits: Partial<ExecutionLimits> | undefined;
  /** How long a stopped runner gets to report before it is terminated. */
  stopGraceMs: number;
}

type StopReason = 'timeout' | 'cancelled' | 'too-many-tool-calls';

/** Runs one script on a pooled runner and turns everything that happened into a `RunResult`. */
export async function runScript(params: RunScriptParams): Promise<RunResult> {
  const startedAt = performance.now();
  const { options } = params;
  if (typeof params.script !== 'string') {
    throw new InvalidRunOptionsError({
      path: 'script',
      message: `expected a string, got ${typeof params.script}`,
    });
  }
  const functions = checkFunctions(options.functions);
  const globals = checkGlobals(options.globals, functions);
  const limits = resolveLimits(params.baseLimits, options.limits);
  const logs: LogEntry[] = [];
  const toolCalls: ToolCallRecord[] = [];
  const logBudget = new LogBudget(limits.maxLogBytes, limits.maxLogLines);
  const failed = (error: ExecutionErrorInfo): RunResult =>
    result(startedAt, { ok: false, error, logs, toolCalls, logBudget, resultBytes: 0 });

  if (options.signal?.aborted) return failed(cancelledError());
  const prepared = prepareScript(params.script, limits.maxSourceBytes);
  if (!prepared.ok) return failed(prepared.error);

  let runner: Awaited<ReturnType<RunnerPool['acquire']>>;
  try {
    runner = await params.pool.acquire(options.signal);
  } catch (error) {
    if (error instanceof AcquireAbortedError) return failed(cancelledError());
    throw error;
  }
  if (options.signal?.aborted) {
    params.pool.release(runner);
    return failed(cancelledError());
  }
  return new Promise<RunResult>((resolve) => {
    const runId = nextRunId++;
    const { channel } = runner;
    const stopBuffer = channel.sharedStopFlag ? new SharedArrayBuffer(4) : undefined;
    const controllers = new Set<AbortController>();
    const inFlight = { count: 0, queue: [] as Array<() => void> };
    let stopReason: StopReason | undefined;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let unsubscribeExit = (): void => {};
    let runnerFreed = false;
    /** Host-side work of every call sent to a tool, until it has settled. */
    const callTasks = new Set<Promise<void>>();
    /** The script has finished with this result; the run waits for calls already sent. */
    let finishedWith: RunResult | undefined;

    const freeRunner = (discard: boolean): void => {
      if (runnerFreed) return;
      runnerFreed = true;
      channel.onMessage(undefined);
      unsubscribeExit();
      channel.setActive(false);
      if (discard) params.pool.discard(runner);
      else params.pool.release(runner);
    };

    const complete = (outcome: RunResult, discard: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadlineTimer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener('abort', onAbort);
      for (const controller of controllers)
        controller.abort(new Error(`run ended: ${stopReason ?? 'finished'}`));
      const now = performance.now();
      for (const record of toolCalls) {
        if (record.outcome === 'cancelled' && record.durationMs < 0) {
          record.durationMs = now + record.durationMs;
          record.error ??= {
            category: 'cancelled',
            message: `Still running when the run ended (${stopReason ?? 'finished'}); the tool was asked to stop through its abort signal and may have completed anyway.`,
          };
        }
      }
      freeRunner(discard);
      resolve(outcome);
    };

    const stop = (reason: StopReason): void => {
      if (stopReason || settled) return;
      if (finishedWith) {
        // The script had finished and the run was waiting for calls already sent: it waits no
        // longer than the deadline (or the caller's cancellation).
        stopReason = reason;
        complete(finishedWith, false);
        return;
      }
      stopReason = reason;
      if (stopBuffer) Atomics.store(new Int32Array(stopBuffer), 0, 1);
      channel.send({ type: 'stop', runId });
      for (const controller of controllers) controller.abort(new Error(`run stopped: ${reason}`));
      graceTimer = setTimeout(
        () => complete(failed(stopError(reason, limits)), true),
        params.stopGraceMs,
      );
    };

    const onAbort = (): void => stop('cancelled');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const deadlineTimer = setTimeout(() => stop('timeout'), limits.timeoutMs);

    const acquireSlot = async (): Promise<void> => {
      if (inFlight.count < limits.maxInFlight) {
        inFlight.count++;
        return;
      }
      await new Promise<void>((wake) => inFlight.queue.push(wake));
    };
    const releaseSlot = (): void => {
      const next = inFlight.queue.shift();
      if (next) next();
      else inFlight.count--;
    };

    const handleCall = async (
      callId: number,
      name: string,
      argsJson: string | undefined,
      argsLength: number | undefined,
    ): Promise<void> => {
      const reply = (envelope: string): void => {
        if (!settled && !stopReason && !runnerFreed)
          channel.send({ type: 'tool-result', runId, callId, envelope });
      };
      const fail = (message: string, category: ToolErrorCategory): string =>
        JSON.stringify({ ok: false, message, category });
      if (toolCalls.length >= limits.maxToolCalls) {
        stop('too-many-tool-calls');
        return;
      }
      const record: ToolCallRecord = {
        id: toolCalls.length + 1,
        name,
        arguments: undefined,
        outcome: 'ok',
        durationMs: 0,
      };
      toolCalls.push(record);
      const callStarted = performance.now();
      const end = (
        outcome: ToolCallRecord['outcome'],
        error?: { message: string; category: ToolErrorCategory },
      ): void => {
        record.outcome = outcome;
        if (error) record.error = error;
        record.durationMs = performance.now() - callStarted;
      };
      const fn = Object.hasOwn(functions, name) ? functions[name] : undefined;
      if (!fn) {
        const message = `No tool named ${JSON.stringify(name)}`;
        end('error', { message, category: 'resourceNotFound' });
        return reply(fail(message, 'resourceNotFound'));
      }
      // Over the limit: measured here, or in the guest, which then sent only the length (at most
      // the UTF-8 size, so "at least").
      const argsBytes = argsJson === undefined ? 0 : Buffer.byteLength(argsJson, 'utf8');
      if (argsLength !== undefined || argsBytes > limits.maxToolInputBytes) {
        const size = argsLength !== undefined ? `at least ${argsLength}` : String(argsBytes);
        const message = `The arguments of ${name} are ${size} bytes as JSON; the limit is ${limits.maxToolInputBytes} bytes (maxToolInputBytes). Pass less data per call.`;
        end('error', { message, category: 'invalidArguments' });
        return reply(fail(message, 'invalidArguments'));
      }
      const args: unknown = argsJson === undefined ? undefined : JSON.parse(argsJson);
      record.arguments = args;
      // A call still running when the run ends is recorded as cancelled; the negative duration
      // holds its start until `complete` computes the real one.
      record.outcome = 'cancelled';
      record.durationMs = -callStarted;
      await acquireSlot();
      const controller = new AbortController();
      controllers.add(controller);
      try {
        if (settled || stopReason) return;
        let value: unknown;
        try {
          value = await fn(args, { signal: controller.signal });
        } catch (error) {
          if (settled) return;
          const failure = describeToolError(error);
          end('error', failure);
          return reply(fail(failure.message, failure.category));
        }
        if (settled) return;
        let envelope: string;
        try {
          envelope = JSON.stringify({ ok: true, value: value ?? null });
        } catch (error) {
          const message = `Tool ${name} returned a value that is not JSON: ${safeMessage(error)}`;
          end('error', { message, category: 'unknown' });
          return reply(fail(message, 'unknown'));
        }
        const size = Buffer.byteLength(envelope, 'utf8');
        if (size > limits.maxToolOutputBytes + 24) {
          const message = `The result of ${name} is about ${size} bytes as JSON; the limit is ${limits.maxToolOutputBytes} bytes (maxToolOutputBytes). Ask the tool for less data (filters, pagination).`;
          end('error', { message, category: 'unknown' });
          return reply(fail(message, 'unknown'));
        }
        end('ok');
        reply(envelope);
      } finally {
        controllers.delete(controller);
        releaseSlot();
      }
    };

    channel.onMessage((message: RunnerMessage) => {
      if (settled || !('runId' in message) || message.runId !== runId) return;
      if (message.type === 'log') {
        if (logBudget.admit(message.message))
          logs.push({ level: message.level, message: message.message });
      } else if (message.type === 'call') {
        const task = handleCall(
          message.callId,
          message.name,
          message.args,
          message.argsLength,
        ).catch((error: unknown) => {
          complete(
            failed({ kind: 'internal', message: `Tool bridge failed: ${safeMessage(error)}` }),
            true,
          );
        });
        callTasks.add(task);
        void task.finally(() => callTasks.delete(task));
      } else if (message.type === 'done') {
        for (const refused of message.refusedCalls ?? []) {
          toolCalls.push({
            id: toolCalls.length + 1,
            name: refused.name,
            arguments: parseArguments(refused.args),
            outcome: 'cancelled',
            error: {
              category: 'cancelled',
              message:
                'Not executed: the script had already finished when it made this call. Await every tool call before returning.',
            },
            durationMs: 0,
          });
        }
        const outcome = stopReason
          ? failed(stopError(stopReason, limits))
          : fromRunnerOutcome(
              message.result,
              prepared.script,
              limits,
              startedAt,
              logs,
              toolCalls,
              logBudget,
            );
        if (stopReason || callTasks.size === 0) return complete(outcome, message.recycle === true);
        // Calls already sent are not pretended away: the run waits for them (bounded by the
        // deadline) and reports how they really ended. The runner has nothing left to do.
        finishedWith = outcome;
        freeRunner(message.recycle === true);
        const waitForCalls = async (): Promise<void> => {
          while (callTasks.size > 0) await Promise.allSettled([...callTasks]);
          complete(outcome, false);
        };
        void waitForCalls();
      }
    });
    unsubscribeExit = channel.onExit((error) => {
      if (settled) return;
      const info: ExecutionErrorInfo = stopReason
        ? stopError(stopReason, limits)
        : params.pool.isClosed
          ? { kind: 'cancelled', message: 'The executor was closed before the run finished.' }
          : // V8 gives up on a heap at its limit with "Last few GCs … last resort" (isolated-vm
            // runners abort the process then) or ERR_WORKER_OUT_OF_MEMORY (worker threads).
            /out of memory|ERR_WORKER_OUT_OF_MEMORY|last resort|Reached heap limit/i.test(
                error.message,
              )
            ? memoryError(limits)
            : {
                kind: 'internal',
                message: `The sandbox runner exited unexpectedly: ${error.message}`,
              };
      complete(failed(info), true);
    });
    channel.setActive(true);
    channel.send({
      type: 'run',
      runId,
      code: prepared.script.code,
      config: {
        functions: Object.keys(functions),
        globals,
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
      ...(stopBuffer ? { stopFlag: stopBuffer } : {}),
    });
  });
}

let nextRunId = 1;
const maxStackFrames = 10;
/** Messages the engines use when an allocation fails. */
const memoryMessages =
  /out of memory|string too long|Array buffer allocation failed|Invalid array length|Invalid string length/i;

function parseArguments(json: string | undefined): unknown {
  if (json === undefined) return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

function fromRunnerOutcome(
  outcome: RunnerOutcome,
  script: PreparedScript,
  limits: ExecutionLimits,
  startedAt: number,
  logs: LogEntry[],
  toolCalls: ToolCallRecord[],
  logBudget: LogBudget,
): RunResult {
  const base = { logs, toolCalls, logBudget };
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
    return result(startedAt, { ...base, ok: false, error: info, resultBytes: 0 });
  }
  const text = outcome.outcome;
  if (text.startsWith('1')) {
    const json = text.slice(1);
    const bytes = Buffer.byteLength(json, 'utf8');
    if (bytes > limits.maxResultBytes) {
      return result(startedAt, {
        ...base,
        ok: false,
        error: outputError(bytes, limits),
        resultBytes: bytes,
      });
    }
    return result(startedAt, {
      ...base,
      ok: true,
      value: json === '' ? undefined : JSON.parse(json),
      resultBytes: bytes,
    });
  }
  const error = JSON.parse(text.slice(1)) as GuestError;
  return result(startedAt, {
    ...base,
    ok: false,
    error: classifyGuestError(error, script, limits),
    resultBytes: 0,
  });
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
  if (memoryMessages.test(error.message)) {
    return memoryError(limits);
  }
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
    if (match[2] !== undefined) {
      const column = Number(match[2]);
      out.column = originalColumn(script, out.line, column);
    }
  }
  return out;
}

function stopError(reason: StopReason, limits: ExecutionLimits): ExecutionErrorInfo {
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

function cancelledError(): ExecutionErrorInfo {
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

function describeToolError(error: unknown): { message: string; category: ToolErrorCategory } {
  try {
    const failure = toolFailureFromError(error);
    return { message: String(failure.message), category: failure.category };
  } catch (secondary) {
    return {
      message: `the tool threw an error that could not be read (${safeMessage(secondary)})`,
      category: 'unknown',
    };
  }
}

function safeMessage(error: unknown): string {
  try {
    return errorMessage(error);
  } catch {
    return 'unreadable error';
  }
}

function result(
  startedAt: number,
  parts: {
    ok: boolean;
    value?: unknown;
    error?: ExecutionErrorInfo;
    logs: LogEntry[];
    toolCalls: ToolCallRecord[];
    logBudget: LogBudget;
    resultBytes: number;
  },
): RunResult {
  const logs = parts.logBudget.truncated
    ? [
        ...parts.logs,
        {
          level: 'warn' as const,
          message: `[console output truncated: over ${parts.logBudget.bytes} bytes / ${parts.logBudget.lines} lines kept (maxLogBytes / maxLogLines)]`,
        },
      ]
    : parts.logs;
  return {
    ok: parts.ok,
    ...(parts.ok && parts.value !== undefined ? { value: parts.value } : {}),
    ...(parts.error ? { error: parts.error } : {}),
    logs,
    logsTruncated: parts.logBudget.truncated,
    toolCalls: parts.toolCalls,
    durationMs: performance.now() - startedAt,
    stats: {
      toolCalls: parts.toolCalls.length,
      logBytes: parts.logBudget.bytes,
      resultBytes: parts.resultBytes,
    },
  };
}

function checkFunctions(functions: RunOptions['functions']): Record<string, HostFunction> {
  if (functions === undefined) return {};
  if (typeof functions !== 'object' || functions === null || Array.isArray(functions)) {
    throw new InvalidRunOptionsError({
      path: 'functions',
      message: 'expected an object of named functions',
    });
  }
  const out: Record<string, HostFunction> = Object.create(null) as Record<string, HostFunction>;
  for (const [name, fn] of Object.entries(functions)) {
    const path = `functions[${JSON.stringify(name)}]`;
    if (typeof fn !== 'function')
      throw new InvalidRunOptionsError({ path, message: `expected a function, got ${typeof fn}` });
    if (name.length === 0 || name.length > 256) {
      throw new InvalidRunOptionsError({
        path,
        message: 'a tool name must be 1-256 characters long',
      });
    }
    if (forbiddenToolNames.has(name)) {
      throw new InvalidRunOptionsError({
        path,
        message: `"${name}" cannot be a tool name in the sandbox (it would change how the tools object behaves); rename it`,
      });
    }
    out[name] = fn;
  }
  return out;
}

function checkGlobals(
  globals: RunOptions['globals'],
  functions: Record<string, HostFunction>,
): Record<string, unknown> {
  if (globals === undefined) return {};
  if (typeof globals !== 'object' || globals === null || Array.isArray(globals)) {
    throw new InvalidRunOptionsError({
      path: 'globals',
      message: 'expected an object of JSON values',
    });
  }
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(globals)) {
    const path = `globals.${name}`;
    if (!identifier.test(name) || reservedGlobalNames.has(name) || name in functions) {
      throw new InvalidRunOptionsError({
        path,
        message:
          'a global name must be a JavaScript identifier other than tools, console and the tool names',
      });
    }
    try {
      out[name] = JSON.parse(JSON.stringify(value ?? null)) as unknown;
    } catch (error) {
      throw new InvalidRunOptionsError({
        path,
        message: `expected a JSON value (${safeMessage(error)})`,
        cause: error,
      });
    }
  }
  return out;
}
