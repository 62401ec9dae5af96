import type { Message, ProviderToolCall, ToolCall } from '@toolwire/schema';
import { InvalidAgentOptionsError } from './agent-errors.js';
import type { AgentTranscript } from './agent-transcript.js';

/** A call waiting for a decision, in a run that paused (`finishReason: 'needs-approval'`). */
export interface PendingApproval {
  /** What the decision is keyed by in `resume(state, { [id]: decision })`: the call id, or the provider's approval request id. */
  id: string;
  /** `tool`: one of the agent's tools; `provider`: a tool the provider runs (a remote MCP server's). */
  kind: 'tool' | 'provider';
  toolName: string;
  arguments: unknown;
  /** For a provider-run call, the MCP server it belongs to. */
  server?: string;
}

/**
 * A paused run as plain JSON: store it anywhere (a database row, a queue message) and pass it to
 * `agent.resume(state, decisions)` of an agent created with the same options, in this process or
 * another. Nothing of the paused step has run yet, so no tool call is repeated.
 */
export interface AgentRunState extends Pick<
  AgentTranscript,
  | 'mode'
  | 'provider'
  | 'modelId'
  | 'startedAt'
  | 'durationMs'
  | 'system'
  | 'input'
  | 'inputRepairs'
  | 'steps'
  | 'usage'
> {
  type: 'toolwire-agent-run';
  version: 1;
  /** The conversation so far, ending with the assistant turn that made the paused calls. */
  messages: Message[];
  /** Model calls the tool loop has made (counted against `maxSteps`). */
  modelCalls: number;
  pending: {
    /** The calls of the paused step, as they will run (after repair), in call order. */
    calls: ToolCall[];
    /** Whether the model's output was cut at its token limit (for argument validation). */
    outputTruncated: boolean;
    approvals: PendingApproval[];
  };
}

/** The provider calls of a response that wait for the caller's approval. */
export function awaitingApproval(
  calls: readonly ProviderToolCall[] | undefined,
): ProviderToolCall[] {
  return (calls ?? []).filter((call) => call.approvalRequestId !== undefined && !call.result);
}

/** Checks that a value is a run state this version can resume; names what is wrong. */
export function readRunState(value: unknown): AgentRunState {
  const state = value as Partial<AgentRunState> | null;
  const fail = (what: string): never => {
    throw new InvalidAgentOptionsError({
      field: 'state',
      message: `state is not a paused agent run: ${what} (pass the \`state\` of a result whose finishReason is "needs-approval")`,
    });
  };
  if (state === null || typeof state !== 'object') return fail('not an object');
  if (state.type !== 'toolwire-agent-run') return fail(`type is ${JSON.stringify(state.type)}`);
  if (state.version !== 1) return fail(`version ${JSON.stringify(state.version)} is not 1`);
  if (!Array.isArray(state.messages) || !Array.isArray(state.steps) || state.steps.length === 0)
    return fail('messages or steps missing');
  if (
    state.pending === null ||
    typeof state.pending !== 'object' ||
    !Array.isArray(state.pending.calls) ||
    !Array.isArray(state.pending.approvals)
  )
    return fail('pending calls missing');
  return state as AgentRunState;
}
