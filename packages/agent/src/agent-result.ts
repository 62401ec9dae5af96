import type { Message, Usage } from '@toolwire/schema';
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
}
