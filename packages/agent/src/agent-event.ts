import type { ChatWarning, ProviderToolCall, ToolCall, ToolResult } from '@toolwire/schema';
import type { AgentResult } from './agent-result.js';
import type { AgentStep, StepKind, StepRequest } from './agent-transcript.js';
import type { GuardrailRecord } from './guardrails.js';

/**
 * What `agent.stream()` yields, in order. `step` is the 1-based index of the step the event
 * belongs to. The last event is `finish`; a failed run throws from the iteration instead.
 */
export type AgentEvent =
  | { type: 'step-start'; step: number; kind: StepKind; request: StepRequest | null }
  | { type: 'text-delta'; step: number; delta: string }
  | { type: 'reasoning-delta'; step: number; delta: string }
  /** A call the model began (streamed runs): its arguments follow as `tool-call-delta`s. */
  | { type: 'tool-call-start'; step: number; id: string; name: string }
  /** A piece of a call's arguments as the model writes them (JSON text; a free-text tool's input). */
  | { type: 'tool-call-delta'; step: number; id: string; name: string; argumentsDelta: string }
  | { type: 'tool-call'; step: number; toolCall: ToolCall }
  /** A call the provider ran (or asks approval for) on its side. */
  | { type: 'provider-tool-call'; step: number; call: ProviderToolCall }
  /** `server` is set for a provider-run call (its `toolCall.id` is the approval request's id). */
  | { type: 'approval-request'; step: number; toolCall: ToolCall; server?: string }
  | {
      type: 'approval-response';
      step: number;
      toolCallId: string;
      approved: boolean;
      reason: string | null;
    }
  | { type: 'tool-result'; step: number; result: ToolResult }
  /** A guardrail refused a call or replaced a result. */
  | { type: 'guardrail'; step: number; record: GuardrailRecord }
  | { type: 'warning'; step: number; warning: ChatWarning }
  | { type: 'step-finish'; step: AgentStep }
  | { type: 'finish'; result: AgentResult };
