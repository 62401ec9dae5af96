import type { ChatWarning, ToolCall, ToolResult } from '@toolwire/schema';
import type { AgentResult } from './agent-result.js';
import type { AgentStep, StepKind, StepRequest } from './agent-transcript.js';

/**
 * What `agent.stream()` yields, in order. `step` is the 1-based index of the step the event
 * belongs to. The last event is `finish`; a failed run throws from the iteration instead.
 */
export type AgentEvent =
  | { type: 'step-start'; step: number; kind: StepKind; request: StepRequest | null }
  | { type: 'text-delta'; step: number; delta: string }
  | { type: 'reasoning-delta'; step: number; delta: string }
  | { type: 'tool-call'; step: number; toolCall: ToolCall }
  | { type: 'approval-request'; step: number; toolCall: ToolCall }
  | {
      type: 'approval-response';
      step: number;
      toolCallId: string;
      approved: boolean;
      reason: string | null;
    }
  | { type: 'tool-result'; step: number; result: ToolResult }
  | { type: 'warning'; step: number; warning: ChatWarning }
  | { type: 'step-finish'; step: AgentStep }
  | { type: 'finish'; result: AgentResult };
