import type { Message } from '@toolwire/schema';
import type { AgentStep } from './agent-transcript.js';

/** What a stop condition is asked after each step of the tool loop. */
export interface StopConditionState {
  /** Every step so far; the last is the one just finished. */
  steps: readonly AgentStep[];
  /** The conversation so far (without the system prompt). */
  messages: readonly Message[];
}

/** True ends the run after the step just finished (`finishReason: 'stop-condition'`). */
export type StopCondition = (state: StopConditionState) => boolean | Promise<boolean>;

/** Stops once the tool loop has made `count` model calls. */
export function stepCountIs(count: number): StopCondition {
  if (!Number.isInteger(count) || count < 1)
    throw new RangeError(`stepCountIs: count must be an integer >= 1 (got ${String(count)})`);
  return ({ steps }) => steps.filter((step) => step.kind === 'tool-loop').length >= count;
}

/** Stops after a step in which the model called one of these tools (any tool when none are named). */
export function hasToolCall(...toolNames: string[]): StopCondition {
  return ({ steps }) => {
    const calls = steps.at(-1)?.toolCalls ?? [];
    return toolNames.length === 0
      ? calls.length > 0
      : calls.some((call) => toolNames.includes(call.name));
  };
}
