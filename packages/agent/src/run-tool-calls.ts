import {
  createToolHandler,
  errorResult,
  executeToolCalls,
  NoSuchToolError,
  parseToolArguments,
  toolCallArgumentsObject,
  toToolSpec,
  toolFailureFromError,
  type AnyTool,
  type InvalidToolArgumentsError,
  type Message,
  type ProviderToolCall,
  type ToolApproval,
  type ToolCall,
  type ToolFailure,
  type ToolResult,
} from '@toolwire/schema';
import type { ApprovalDecision } from './agent-options.js';
import type { PendingApproval } from './agent-state.js';
import { endToolSpan, startToolSpan, traceparentOf } from './agent-telemetry.js';
import type { AgentStep } from './agent-transcript.js';
import { runCancelled } from './agent-errors.js';
import { guardsTool, refusedResult, replacedResult, type GuardrailRecord } from './guardrails.js';
import { raceAbort, type RunContext } from './run-context.js';

/** A call after validation (and repair): ready to run, or with the reason it cannot. */
export type PreparedCall =
  | { call: ToolCall; tool: AnyTool; value: Record<string, unknown>; error?: undefined }
  | { call: ToolCall; error: InvalidToolArgumentsError | NoSuchToolError | ToolFailure };

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
 * model's call id); what still fails keeps its error, which becomes the call's tool result. A call
 * of a tool outside `activeTools` is refused the same way.
 */
export async function prepareToolCalls(
  context: RunContext,
  step: AgentStep,
  modelCalls: readonly ToolCall[],
  options: {
    outputTruncated?: boolean;
    messages: readonly Message[];
    activeTools?: readonly string[] | undefined;
  },
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
    const active = options.activeTools;
    if (active && !active.includes(call.name) && !('error' in checked)) {
      prepared.push({
        call,
        error: {
          category: 'permissionDenied',
          message: `The tool "${call.name}" is not available in this step; use one of: ${active.join(', ') || 'none'}.`,
        },
      });
      continue;
    }
    prepared.push('error' in checked ? { call, error: checked.error } : { call, ...checked });
  }
  return prepared;
}

/** Re-validates the calls of a paused step (repairs were already applied to them). */
export function recheckToolCalls(
  context: RunContext,
  calls: readonly ToolCall[],
  outputTruncated: boolean,
): PreparedCall[] {
  return calls.map((call) => {
    const checked = check(context, call, outputTruncated);
    return 'error' in checked ? { call, error: checked.error } : { call, ...checked };
  });
}

/** The decisions for a step's calls: by call index, and the answers for the provider. */
export interface StepApprovals {
  /** Calls (by index) that need approval, and whether they got it. */
  decisions: Map<number, { approved: boolean; reason: string | null }>;
  /** Answers to the provider's approval requests. */
  provider: ToolApproval[];
  /** Decisions nobody has made yet (a paused run). */
  pending: PendingApproval[];
}

function decisionOf(decision: ApprovalDecision | undefined): {
  approved: boolean;
  reason: string | null;
} {
  const approved = typeof decision === 'boolean' ? decision : decision?.approved === true;
  const reason =
    typeof decision === 'object' && decision !== null && typeof decision.reason === 'string'
      ? decision.reason
      : null;
  return { approved, reason };
}

/** What needs approval in a step: the calls `needsApproval` picks and the provider's requests. */
export function approvalsNeeded(
  context: RunContext,
  prepared: readonly PreparedCall[],
  providerRequests: readonly ProviderToolCall[],
): PendingApproval[] {
  const needed: PendingApproval[] = [];
  for (const entry of prepared) {
    if (entry.error || !context.options.needsApproval(entry.tool, entry.call)) continue;
    needed.push({
      id: entry.call.id,
      kind: 'tool',
      toolName: entry.call.name,
      arguments: entry.value,
    });
  }
  for (const request of providerRequests) {
    needed.push({
      id: request.approvalRequestId!,
      kind: 'provider',
      toolName: request.name,
      arguments: request.arguments,
      ...(request.server !== undefined ? { server: request.server } : {}),
    });
  }
  return needed;
}

/**
 * Asks the approval hook about each call that needs approval, in call order (the provider's
 * requests last), or takes the decisions given to `resume`. Without a hook and without decisions,
 * the agent's own calls run as before (no approval is asked) and the provider's requests are
 * refused, since nobody could approve them.
 */
export async function decideApprovals(
  context: RunContext,
  step: AgentStep,
  prepared: readonly PreparedCall[],
  needed: readonly PendingApproval[],
  given?: Readonly<Record<string, ApprovalDecision>>,
): Promise<StepApprovals> {
  const { options, signal } = context;
  const result: StepApprovals = { decisions: new Map(), provider: [], pending: [] };
  if (needed.length === 0) return result;
  for (const approval of needed) {
    const index = prepared.findIndex((entry) => entry.call.id === approval.id);
    const entry = index >= 0 ? prepared[index] : undefined;
    let decision: { approved: boolean; reason: string | null };
    if (given) {
      decision = decisionOf(given[approval.id]);
    } else if (options.approve) {
      const toolCall: ToolCall = entry
        ? entry.call
        : { id: approval.id, name: approval.toolName, arguments: approval.arguments };
      context.emit({
        type: 'approval-request',
        step: step.index,
        toolCall,
        ...(approval.kind === 'provider' ? { server: approval.server } : {}),
      });
      // Raced against the signal: a prompt nobody answers must not outlive a cancelled run.
      decision = decisionOf(
        await raceAbort(
          Promise.resolve(
            options.approve({
              toolCall,
              tool:
                entry && !entry.error
                  ? toToolSpec(entry.tool)
                  : {
                      name: approval.toolName,
                      description: `Tool "${approval.toolName}" of MCP server "${approval.server ?? 'unknown'}", run by the provider`,
                      inputSchema: { type: 'object' },
                    },
              arguments:
                entry && !entry.error ? entry.value : (toolCallArgumentsObject(toolCall) ?? {}),
              signal,
              ...(approval.kind === 'provider' ? { provider: { server: approval.server } } : {}),
            }),
          ),
          signal,
        ),
      );
    } else if (options.pauseForApproval) {
      result.pending.push(approval);
      continue;
    } else if (approval.kind === 'tool') {
      continue; // no hook: the call runs, as without approvals
    } else {
      decision = { approved: false, reason: 'no approval hook is set' };
    }
    step.approvals.push({
      toolCallId: approval.id,
      toolName: approval.toolName,
      approved: decision.approved,
      reason: decision.reason,
    });
    context.emit({
      type: 'approval-response',
      step: step.index,
      toolCallId: approval.id,
      approved: decision.approved,
      reason: decision.reason,
    });
    if (approval.kind === 'provider')
      result.provider.push({
        approvalRequestId: approval.id,
        approved: decision.approved,
        ...(decision.reason !== null ? { reason: decision.reason } : {}),
      });
    else result.decisions.set(index, decision);
  }
  return result;
}

/**
 * Runs prepared calls: invalid ones get their validation error as the result; refused ones (no
 * approval, or an input guardrail) a `permissionDenied` result saying why; the rest run in
 * parallel, each in an `execute_tool` span, its result checked by the output guardrails. Results
 * come back in call order, each also emitted as a `tool-result` event when it is ready. Never
 * throws for a failing tool; throws `CancelledError` when the run is aborted.
 */
export async function executePreparedCalls(
  context: RunContext,
  step: AgentStep,
  prepared: readonly PreparedCall[],
  approvals: StepApprovals = { decisions: new Map(), provider: [], pending: [] },
): Promise<ToolResult[]> {
  const { options, signal } = context;
  const results: (ToolResult | undefined)[] = new Array(prepared.length);
  const runnable: Array<{ index: number; call: ToolCall; tool: AnyTool }> = [];
  // Calls refused before running (invalid, not approved, guarded) took no time.
  const settle = (index: number, result: ToolResult) => {
    result.durationMs = 0;
    results[index] = result;
    context.emit({ type: 'tool-result', step: step.index, result });
  };

  for (const [index, entry] of prepared.entries()) {
    const { call } = entry;
    if (entry.error) {
      const failure =
        entry.error instanceof Error ? toolFailureFromError(entry.error) : entry.error;
      settle(index, errorResult(call.id, call.name, failure));
      continue;
    }
    const decision = approvals.decisions.get(index);
    if (decision && !decision.approved) {
      settle(
        index,
        errorResult(call.id, call.name, {
          category: 'permissionDenied',
          message: `The user did not approve this call of "${call.name}"${decision.reason ? `: ${decision.reason}` : ''}. Do not retry it unless the user asks.`,
        }),
      );
      continue;
    }
    const refusal =
      options.guardrails.input.length > 0 ? await inputGuardrails(context, step, entry) : undefined;
    if (refusal) {
      settle(index, refusal);
      continue;
    }
    // Run with the validated value, so the tool gets exactly what was checked.
    runnable.push({ index, call: { ...call, arguments: entry.value }, tool: entry.tool });
  }

  if (runnable.length > 0) {
    const base = createToolHandler(
      runnable.map((r) => r.tool),
      { nullMeansAbsent: true },
    );
    const byId = new Map(runnable.map((r) => [r.call.id, r.tool]));
    const guarded = options.guardrails.output.length > 0;
    const executed = await executeToolCalls(
      runnable.map((r) => r.call),
      // Without tracing and output guardrails, the calls run as they are.
      !context.tracer && !guarded
        ? base
        : async (call, toolContext) => {
            const span = startToolSpan(context.tracer, context.traceContext, call);
            const traceparent = traceparentOf(span);
            let result = await base(call, {
              ...toolContext,
              ...(traceparent ? { traceparent } : {}),
            });
            if (guarded)
              result = await outputGuardrails(context, step, call, byId.get(call.id)!, result);
            endToolSpan(span, result);
            return result;
          },
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

async function inputGuardrails(
  context: RunContext,
  step: AgentStep,
  entry: Extract<PreparedCall, { tool: AnyTool }>,
): Promise<ToolResult | undefined> {
  for (const guardrail of context.options.guardrails.input) {
    if (!guardsTool(guardrail, entry.call.name)) continue;
    const verdict = await raceAbort(
      Promise.resolve(
        guardrail.check({
          toolCall: entry.call,
          tool: toToolSpec(entry.tool),
          arguments: entry.value,
          signal: context.signal,
        }),
      ),
      context.signal,
    );
    if (verdict.action !== 'refuse') continue;
    record(context, step, entry.call, guardrail.name, 'input', verdict.message);
    return refusedResult(entry.call, guardrail.name, verdict.message);
  }
  return undefined;
}

async function outputGuardrails(
  context: RunContext,
  step: AgentStep,
  call: ToolCall,
  tool: AnyTool,
  result: ToolResult,
): Promise<ToolResult> {
  let current = result;
  for (const guardrail of context.options.guardrails.output) {
    if (!guardsTool(guardrail, call.name)) continue;
    const verdict = await guardrail.check({
      toolCall: call,
      tool: toToolSpec(tool),
      result: current,
      signal: context.signal,
    });
    if (verdict.action !== 'replace') continue;
    record(context, step, call, guardrail.name, 'output', verdict.message);
    current = replacedResult(call, guardrail.name, verdict);
  }
  return current;
}

/** Keeps a guardrail's decision on the step and emits it. */
function record(
  context: RunContext,
  step: AgentStep,
  call: ToolCall,
  guardrail: string,
  stage: 'input' | 'output',
  message: string,
): void {
  const decision: GuardrailRecord = {
    toolCallId: call.id,
    toolName: call.name,
    guardrail,
    stage,
    action: stage === 'input' ? 'refuse' : 'replace',
    message,
  };
  step.guardrails.push(decision);
  context.emit({ type: 'guardrail', step: step.index, record: decision });
}
