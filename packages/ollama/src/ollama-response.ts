import {
  parseToolArguments,
  toolChoiceViolation,
  type ChatResponse,
  type ChatWarning,
  type FinishReason,
  type JsonSchema,
  type ToolChoice,
} from '@toolwire/schema';
import type { OllamaAssembled } from './ollama-stream-accumulator.js';

/** Ollama `done_reason` → the normalised finish reason (Ollama has no "tool calls" reason). */
export function mapOllamaFinishReason(
  reason: string | undefined,
  calledTools: boolean,
): FinishReason {
  if (reason === 'length') return 'length';
  if (reason === 'stop' || reason === undefined) return calledTools ? 'tool-calls' : 'stop';
  return 'other';
}

export interface OllamaFinishContext {
  modelId: string;
  warnings: ChatWarning[];
  toolChoice: ToolChoice | undefined;
  parallelToolCalls: boolean | undefined;
  /** With `responseFormat`: the schema the answer text must match. */
  responseSchema?: JsonSchema;
}

/**
 * The normalised response. Ollama enforces neither tool choice nor the parallel switch, so both
 * are checked here, after the fact, and a mismatch is reported as a warning.
 */
export function finishOllamaResponse(
  assembled: OllamaAssembled,
  context: OllamaFinishContext,
): ChatResponse {
  const warnings = [...context.warnings];
  const names = assembled.toolCalls.map((call) => call.name);
  const violation = toolChoiceViolation(context.toolChoice, names);
  if (violation)
    warnings.push({
      type: 'tool-choice-ignored',
      message: `${violation} (Ollama does not enforce tool choice)`,
    });
  if (context.parallelToolCalls === false && assembled.toolCalls.length > 1) {
    warnings.push({
      type: 'parallel-calls-ignored',
      message: `parallelToolCalls was false but the model made ${assembled.toolCalls.length} calls (Ollama has no switch for it)`,
    });
  }

  let object: unknown;
  let hasObject = false;
  const finishReason = mapOllamaFinishReason(assembled.doneReason, assembled.toolCalls.length > 0);
  if (context.responseSchema && assembled.toolCalls.length === 0) {
    const parsed = parseToolArguments(context.responseSchema, assembled.text, {
      toolName: 'response',
      outputTruncated: finishReason === 'length',
    });
    if (!parsed.success) throw parsed.error;
    object = parsed.value;
    hasObject = true;
    if (parsed.repaired)
      warnings.push({
        type: 'arguments-repaired',
        message: `structured output repaired: ${parsed.repairs.join('; ')}`,
      });
  }

  const inputTokens = assembled.promptEvalCount ?? 0;
  const outputTokens = assembled.evalCount ?? 0;
  return {
    text: assembled.text,
    toolCalls: assembled.toolCalls,
    finishReason,
    ...(assembled.doneReason !== undefined ? { rawFinishReason: assembled.doneReason } : {}),
    usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
    ...(assembled.thinking !== ''
      ? { reasoning: [{ type: 'reasoning' as const, text: assembled.thinking }] }
      : {}),
    ...(hasObject ? { object } : {}),
    warnings,
    modelId: assembled.model ?? context.modelId,
    ...(Object.keys(assembled.durations).length > 0
      ? { providerMetadata: { ollama: { ...assembled.durations } } }
      : {}),
  };
}
