import { isToolContentOutput, type AnyTool, type ToolExecutionContext } from './define-tool.js';
import { CancelledError, NoSuchToolError, TimeoutError } from './errors.js';
import { parseToolArguments } from './parse-tool-arguments.js';
import type { ToolCall } from './tool-call.js';
import {
  cancelledResult,
  errorResult,
  toolFailureFromError,
  valueResult,
  type ToolResult,
} from './tool-result.js';
import { getSchemaValidator } from './schema-validator.js';

/** Runs one call and returns its result; used when calls go somewhere other than a local tool. */
export type ToolCallHandler = (
  call: ToolCall,
  context: ToolExecutionContext,
) => Promise<ToolResult>;

export interface ExecuteToolCallsOptions {
  /** At most this many calls run at once (default 8). */
  concurrency?: number;
  /** Per-call time limit; the call's signal is aborted and it gets an `executionTimeout` result. */
  timeoutMs?: number;
  /** Cancels every call not yet finished; those get `cancelled` results. */
  signal?: AbortSignal;
  /** Read null as absent for optional arguments (set when tools were sent in OpenAI-strict form). */
  nullMeansAbsent?: boolean;
  /** Check tool output against `outputSchema` when the tool declares one (default true). */
  validateOutput?: boolean;
  onCallStart?: (call: ToolCall) => void;
  onCallFinish?: (call: ToolCall, result: ToolResult) => void;
}

/**
 * Executes tool calls in parallel (seed 001 `executeToolCalls`): a concurrency limit, a per-call
 * timeout, an AbortSignal that cancels in-flight calls, every error captured as that call's
 * result, and results returned in call order. Never throws for a failing call.
 */
export async function executeToolCalls(
  calls: readonly ToolCall[],
  tools: readonly AnyTool[] | Readonly<Record<string, AnyTool>> | ToolCallHandler,
  options: ExecuteToolCallsOptions = {},
): Promise<ToolResult[]> {
  const handler = typeof tools === 'function' ? tools : createToolHandler(tools, options);
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const results: ToolResult[] = new Array(calls.length);
  let next = 0;

  const worker = async (): Promise<void> => {
    while (next < calls.length) {
      const index = next++;
      const call = calls[index]!;
      if (options.signal?.aborted) {
        results[index] = cancelledResult(call.id, call.name);
        continue;
      }
      options.onCallStart?.(call);
      const started = performance.now();
      const result = await runWithLimits(call, handler, options);
      result.durationMs ??= Math.round((performance.now() - started) * 1000) / 1000;
      results[index] = result;
      options.onCallFinish?.(call, result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, calls.length) }, worker));
  return results;
}

async function runWithLimits(
  call: ToolCall,
  handler: ToolCallHandler,
  options: ExecuteToolCallsOptions,
): Promise<ToolResult> {
  const controller = new AbortController();
  const cleanups: Array<() => void> = [];
  let settle: ((result: ToolResult) => void) | undefined;
  const interrupted = new Promise<ToolResult>((resolve) => {
    settle = resolve;
  });
  const outer = options.signal;
  if (outer) {
    const onAbort = () => {
      controller.abort(new CancelledError());
      settle?.(cancelledResult(call.id, call.name));
    };
    outer.addEventListener('abort', onAbort, { once: true });
    cleanups.push(() => outer.removeEventListener('abort', onAbort));
  }
  if (options.timeoutMs !== undefined && options.timeoutMs > 0) {
    const timeoutMs = options.timeoutMs;
    const timer = setTimeout(() => {
      const error = new TimeoutError({
        timeoutMs,
        message: `Tool "${call.name}" did not finish within ${timeoutMs} ms`,
      });
      controller.abort(error);
      settle?.(
        errorResult(call.id, call.name, { category: 'executionTimeout', message: error.message }),
      );
    }, timeoutMs);
    cleanups.push(() => clearTimeout(timer));
  }
  try {
    const running = handler(call, { toolCallId: call.id, signal: controller.signal }).catch(
      (error: unknown) => errorResult(call.id, call.name, toolFailureFromError(error)),
    );
    return await Promise.race([running, interrupted]);
  } finally {
    for (const cleanup of cleanups) cleanup();
  }
}

/** A handler that runs local tools: looks the tool up, validates arguments, runs `execute`. */
export function createToolHandler(
  tools: readonly AnyTool[] | Readonly<Record<string, AnyTool>>,
  options: Pick<ExecuteToolCallsOptions, 'nullMeansAbsent' | 'validateOutput'> = {},
): ToolCallHandler {
  const byName = new Map<string, AnyTool>(
    Array.isArray(tools)
      ? tools.map((tool) => [tool.name, tool])
      : Object.entries(tools as Record<string, AnyTool>),
  );
  return async (call, context) => {
    const tool = byName.get(call.name);
    if (!tool) {
      return errorResult(
        call.id,
        call.name,
        toolFailureFromError(
          new NoSuchToolError({ toolName: call.name, availableTools: [...byName.keys()] }),
        ),
      );
    }
    if (!tool.execute) {
      return errorResult(call.id, call.name, {
        category: 'unknown',
        message: `Tool "${call.name}" has no execute function`,
      });
    }
    const parsed = parseToolArguments(tool.inputSchema, call.arguments, {
      toolName: call.name,
      ...(options.nullMeansAbsent !== undefined
        ? { nullMeansAbsent: options.nullMeansAbsent }
        : {}),
    });
    if (!parsed.success) return errorResult(call.id, call.name, toolFailureFromError(parsed.error));
    const output: unknown = await tool.execute(parsed.value, context);
    return toolOutputToResult(call, tool, output, options.validateOutput ?? true);
  };
}

/** Converts what `execute` returned into a ToolResult, checking it against `outputSchema`. */
export function toolOutputToResult(
  call: Pick<ToolCall, 'id' | 'name'>,
  tool: AnyTool,
  output: unknown,
  validateOutput = true,
): ToolResult {
  if (isToolContentOutput(output)) {
    return {
      toolCallId: call.id,
      toolName: call.name,
      content: output.parts,
      isError: output.isError ?? false,
      ...(output.structuredContent !== undefined
        ? { structuredContent: output.structuredContent }
        : {}),
      ...(output.isError
        ? { error: { category: 'unknown' as const, message: 'the tool reported an error' } }
        : {}),
    };
  }
  if (validateOutput && tool.outputSchema) {
    const checked = getSchemaValidator(tool.outputSchema).validate(output);
    if (!checked.success) {
      return errorResult(call.id, call.name, {
        category: 'unknown',
        message: `Tool "${call.name}" returned output that does not match its output schema`,
        details: {
          issues: checked.issues.map((i) => `${i.pointer || '/'}: ${i.message}`).join('; '),
        },
      });
    }
  }
  return valueResult(call.id, call.name, output);
}
