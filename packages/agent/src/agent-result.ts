import type { Message, Usage } from '@toolwire/schema';
import type { PendingApproval, AgentRunState } from './agent-state.js';
import type { AgentFinishReason, AgentStep, AgentTranscript } from './agent-transcript.js';

export interface AgentResult {
  /** The answer. */
  text: string;
  finishReason: AgentFinishReason;
  steps: AgentStep[];
  /** Summed over every step. */
  usage: Usage;
  /** The conversation after the run (input, assistant and tool messages; no system prompt). */
  messages: Message[];
  transcript: AgentTranscript;
  /** With `finishReason: 'needs-approval'`: the calls waiting for a decision. */
  pendingApprovals?: PendingApproval[];
  /** With `finishReason: 'needs-approval'`: the paused run, as JSON, for `agent.resume`. */
  state?: AgentRunState;
}
