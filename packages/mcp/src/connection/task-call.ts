import type { CallToolResult } from '@modelcontextprotocol/client';
import { CancelledError, TimeoutError } from '@toolwire/schema';
import { ToolCallProtocolError } from '../errors.js';
import type { RegistryClient } from '../registry-client.js';
import { callFailure, type ToolCallRequest } from './call.js';

/** A task as the server last described it (`tasks/get`, 2025-11-25 core tasks). */
export interface ToolTask {
  taskId: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
  /** How often the server suggests polling (ms). */
  pollInterval?: number;
}

/** `createRegistry({ tasks })`: how tools that run as tasks are called. */
export interface TaskCallSettings {
  /**
   * Call tools whose `execution.taskSupport` is `optional` as tasks too (default false: only those
   * that require it; `callTool(..., { task })` decides per call).
   */
  optional?: boolean;
  /** How long the server should keep a task's result after it ends (`ttl`; default 1 hour). */
  ttlMs?: number;
  /** Poll interval when the server suggests none (default 1000 ms). */
  pollIntervalMs?: number;
}

const DEFAULT_TTL_MS = 60 * 60_000;
const DEFAULT_POLL_MS = 1000;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Takes any result object: task results are checked here, field by field. */
const ANY_RESULT = {
  '~standard': {
    version: 1 as const,
    vendor: 'toolwire',
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
  },
};

/** Whether a call of this tool goes as a task (its `execution.taskSupport`, the caller's wish). */
export function runsAsTask(
  taskSupport: string | undefined,
  wish: boolean | undefined,
  settings: TaskCallSettings | undefined,
): boolean {
  if (taskSupport === 'required') return true;
  if (taskSupport === 'optional') return wish ?? settings?.optional ?? false;
  return false;
}

/**
 * Calls a tool as a task (2025-11-25 core tasks): `tools/call` with `task` creates it, `tasks/get`
 * is polled at the server's `pollInterval`, `tasks/result` fetches the result once it ended.
 * Every request is bounded by the call's timeout, the task itself is not: it runs as long as the
 * server works on it. When the task needs input (`input_required`), `tasks/result` is asked at
 * once: the server sends its elicitation or sampling request on the way, answered by the
 * registry's handlers. An aborted signal cancels the task upstream (`tasks/cancel`). A server that
 * answers the call without creating a task (it ran at once) gives that answer.
 */
export async function sendTaskCall(
  client: RegistryClient,
  request: ToolCallRequest,
  settings: TaskCallSettings | undefined,
  onConnectionLost: (why: string) => string,
): Promise<CallToolResult> {
  const { toolName, args, options, timeoutMs } = request;
  const send = async (
    method: string,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> => {
    try {
      return (await client.request({ method, params }, ANY_RESULT, {
        timeout: timeoutMs,
        resetTimeoutOnProgress: true,
        ...(options.signal ? { signal: options.signal } : {}),
      })) as Record<string, unknown>;
    } catch (error) {
      throw callFailure(error, request, onConnectionLost);
    }
  };
  const created = await send('tools/call', {
    name: toolName,
    arguments: args,
    ...(options.meta ? { _meta: options.meta } : {}),
    task: { ttl: settings?.ttlMs ?? DEFAULT_TTL_MS },
  });
  if (!isRecord(created.task)) return created as unknown as CallToolResult;
  let task = taskOf(created.task, request);
  const taskId = task.taskId;
  const onAbort = () => {
    // Best effort: the caller is gone either way; a server that cannot cancel lets the task end.
    void client
      .request({ method: 'tasks/cancel', params: { taskId } }, ANY_RESULT, { timeout: timeoutMs })
      .catch(() => undefined);
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      options.onTask?.(task);
      if (task.status === 'cancelled')
        throw new CancelledError({
          message: `Task ${taskId} of "${toolName}" on "${request.server}" was cancelled${
            task.statusMessage ? `: ${task.statusMessage}` : ''
          }`,
        });
      if (task.status === 'input_required' || TERMINAL.has(task.status)) {
        try {
          return (await send('tasks/result', { taskId })) as unknown as CallToolResult;
        } catch (error) {
          // tasks/result waits for the task's end; past the request timeout, poll again.
          if (!isTimeout(error) || TERMINAL.has(task.status)) throw error;
        }
      } else {
        await delay(
          task.pollInterval ?? settings?.pollIntervalMs ?? DEFAULT_POLL_MS,
          options.signal,
        );
      }
      task = taskOf(await send('tasks/get', { taskId }), request);
    }
  } catch (error) {
    if (options.signal?.aborted && !(error instanceof CancelledError))
      throw new CancelledError({
        message: `Call of "${toolName}" on "${request.server}" was cancelled (task ${taskId} was sent tasks/cancel)`,
        cause: error,
      });
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}

function taskOf(value: unknown, request: ToolCallRequest): ToolTask {
  const task = isRecord(value) ? value : {};
  const status = task.status;
  if (
    typeof task.taskId !== 'string' ||
    typeof status !== 'string' ||
    !['working', 'input_required', 'completed', 'failed', 'cancelled'].includes(status)
  )
    throw new ToolCallProtocolError({
      server: request.server,
      toolName: request.toolName,
      message: `MCP server "${request.server}" answered the task of "${request.toolName}" with no task id or an unknown status: ${String(JSON.stringify(value)).slice(0, 200)}`,
    });
  return {
    taskId: task.taskId,
    status: status as ToolTask['status'],
    ...(typeof task.statusMessage === 'string' ? { statusMessage: task.statusMessage } : {}),
    ...(typeof task.pollInterval === 'number' && task.pollInterval > 0
      ? { pollInterval: task.pollInterval }
      : {}),
  };
}

function isTimeout(error: unknown): boolean {
  return error instanceof TimeoutError;
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      if (signal?.aborted) reject(signal.reason);
      else resolve();
    };
    // Not unref'd: a call waiting for its task keeps the process alive, as a request would.
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
