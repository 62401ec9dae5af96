import {
  createToolHandler,
  errorResult,
  executeToolCalls,
  NoSuchToolError,
  parseToolArguments,
  toToolSpec,
  toolFailureFromError,
  type AnyTool,
  type InvalidToolArgumentsError,
  type Message,
  type ToolCall,
  type ToolResult,
} from '@toolwire/schema';
import type { AgentStep } from './agent-transcript.js';
import { runCancelled } from './agent-errors.js';
import { raceAbort, type RunContext } from './run-context.js';

/** A call after validation (and repair): ready to run, or with the reason it cannot. */
export type PreparedCall =
  | { call: ToolCall; tool: AnyTool; value: Record<string, unknown>; error?: undefined }
  | { call: ToolCall; error: InvalidToolArgumentsError | NoSuchToolError };

function check(
  context: RunContext,
  call: ToolCall,
  outputTruncated: boolean,
):
  | { tool: AnyTool; value: Record<string, unknown> }
  | { error: InvalidToolArgumentsError | NoSuchToolError } {
  const tool = context.toolsByName.get(call.name);
  if (!tool) {
    return {
      error: new NoSuchToolError({
        toolName: call.name,
        availableTools: [...context.toolsByName.keys()],
      }),
    };
  }
  // Null for an optional property is read as absent: adapters may have sent an OpenAI-strict
  // schema (optionals made nullable), and a null there would fail validation anyway.
  const parsed = parseToolArguments(tool.inputSchema, call.arguments, {
    toolName: call.name,
    nullMeansAbsent: true,
    outputTruncated,
  });
  return parsed.success ? { tool, value: parsed.value } : { error: parsed.error };
}

/**
 * Validates a turn's calls against the tools. A call naming an unknown tool or with invalid
 * arguments goes to the repair hook when there is one (its fix is validated again, keeping the
 * model's call id); what still fails keeps its error, which becomes the call's tool result.
 */
export async function prepareToolCalls(
  context: RunContext,
  step: AgentStep,
  modelCalls: readonly ToolCall[],
  options: { outputTruncated?: boolean; messages: readonly Message[] },
): Promise<PreparedCall[]> {
  const { signal } = context;
  const repair = context.options.repairToolCall;
  const prepared: PreparedCall[] = [];
  for (const original of modelCalls) {
    let call = original;
    let checked = check(context, call, options.outputTruncated ?? false);
    if ('error' in checked && repair) {
      const fixed = await raceAbort(
        Promise.resolve(
          repair({
            toolCall: original,
            error: checked.error,
            tools: context.specs,
            messages: options.messages,
            signal,
          }),
        ),
        signal,
      );
      const repaired = fixed ? { ...fixed, id: original.id } : null;
      step.repairs.push({
        toolCallId: original.id,
        original,
        repaired,
        error: checked.error.message,
      });
      if (repaired) {
        call = repaired;
        checked = check(context, call, false);
      }
    }
    prepared.push('error' in checked ? { call, error: checked.error } : { call, ...checked });
  }
  return prepared;
}

/**
 * Runs prepared calls: invalid ones get their validation error as the result; calls of tools
 * that need approval wait for the approval hook (in call order) and a refusal becomes a
 * `permissionDenied` result; the rest run in parallel. Results come back in call order, each
 * also emitted as a `tool-result` event when it is ready. Never throws for a failing tool;
 * throws `CancelledError` when the run is aborted.
 */
export async function executePreparedCalls(
  context: RunContext,
  step: AgentStep,
  prepared: readonly PreparedCall[],
): Promise<ToolResult[]> {
  const { options, signal } = context;
  const results: (ToolResult | undefined)[] = new Array(prepared.length);
  const runnable: Array<{ index: number; call: ToolCall; tool: AnyTool }> = [];
  // Calls refused before running (invalid, not approved) took no time.
  const settle = (index: number, result: ToolResult) => {
    result.durationMs = 0;
    results[index] = result;
    context.emit({ type: 'tool-result', step: step.index, result });
  };

  for (const [index, entry] of prepared.entries()) {
    const { call } = entry;
    if (entry.error) {
      settle(index, errorResult(call.id, call.name, toolFailureFromError(entry.error)));
      continue;
    }
    if (options.approve && options.needsApproval(entry.tool, call)) {
      context.emit({ type: 'approval-request', step: step.index, toolCall: call });
      // Raced against the signal: a prompt nobody answers must not outlive a cancelled run.
      const decision = await raceAbort(
        Promise.resolve(
          options.approve({
            toolCall: call,
            tool: toToolSpec(entry.tool),
            arguments: entry.value,
            signal,
          }),
        ),
        signal,
      );
      const approved = typeof decision === 'boolean' ? decision : decision?.approved === true;
      const reason =
        typeof decision === 'object' && decision !== null && typeof decision.reason === 'string'
          ? decision.reason
          : null;
      step.approvals.push({ toolCallId: call.id, toolName: call.name, approved, reason });
      context.emit({
        type: 'approval-response',
        step: step.index,
        toolCallId: call.id,
        approved,
        reason,
      });
      if (!approved) {
        settle(
          index,
          errorResult(call.id, call.name, {
            category: 'permissionDenied',
            message: `The user did not approve this call of "${call.name}"${reason ? `: ${reason}` : ''}. Do not retry it unless the user asks.`,
          }),
        );
        continue;
      }
    }
    // Run with the validated value, so the tool gets exactly what was checked.
    runnable.push({ index, call: { ...call, arguments: entry.value }, tool: entry.tool });
  }

  if (runnable.length > 0) {
    const executed = await executeToolCalls(
      runnable.map((r) => r.call),
      createToolHandler(
        runnable.map((r) => r.tool),
        { nullMeansAbsent: true },
      ),
      {
        concurrency: options.concurrency,
        ...(options.toolTimeoutMs !== undefined ? { timeoutMs: options.toolTimeoutMs } : {}),
        signal,
        onCallFinish: (_call, result) => {
          if (!signal.aborted) context.emit({ type: 'tool-result', step: step.index, result });
        },
      },
    );
    if (signal.aborted) throw runCancelled(signal);
    executed.forEach((result, i) => {
      results[runnable[i]!.index] = result;
    });
  }
  return results as ToolResult[];
}
