import {
  ProviderError,
  generateToolCallId,
  parseToolArguments,
  type ChatRequest,
  type ChatResponse,
  type ChatWarning,
  type FinishReason,
  type ProviderToolCall,
  type ReasoningPart,
  type ToolCall,
  type Usage,
} from '@toolwire/schema';
import type { OpenAIWireCompletion, OpenAIWireUsage } from './openai-wire.js';

/**
 * Normalises usage. OpenAI counts reasoning inside `completion_tokens`; xAI counts it beside
 * (`total = prompt + completion + reasoning`), which is detected from the numbers so that
 * `outputTokens` always includes reasoning.
 */
export function mapOpenAIUsage(usage: OpenAIWireUsage | null | undefined): Usage {
  const input = usage?.prompt_tokens ?? 0;
  let output = usage?.completion_tokens ?? 0;
  const reasoning = usage?.completion_tokens_details?.reasoning_tokens ?? undefined;
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? undefined;
  const reportedTotal = usage?.total_tokens ?? undefined;
  if (
    reasoning !== undefined &&
    reasoning > 0 &&
    reportedTotal !== undefined &&
    reportedTotal === input + output + reasoning
  )
    output += reasoning;
  const out: Usage = {
    inputTokens: input,
    outputTokens: output,
    totalTokens: reportedTotal ?? input + output,
  };
  if (cached !== undefined) out.cachedInputTokens = cached;
  if (reasoning !== undefined) out.reasoningTokens = reasoning;
  return out;
}

export function mapOpenAIFinishReason(
  raw: string | null | undefined,
  hasToolCalls: boolean,
): FinishReason {
  switch (raw) {
    case 'stop':
      // Several compatible servers (vLLM, Ollama's /v1) say "stop" after tool calls.
      return hasToolCalls ? 'tool-calls' : 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    case 'error':
      return 'error';
    default:
      return hasToolCalls ? 'tool-calls' : 'other';
  }
}

/** What a response is assembled from, streamed or not. */
export interface OpenAIResponseParts {
  text: string;
  reasoning: string;
  refusal: string;
  toolCalls: ToolCall[];
  rawFinishReason: string | undefined;
  usage: Usage;
  modelId: string;
  responseId: string | undefined;
  /** Calls the provider sent without a function name (unusable, reported as warnings). */
  droppedCalls: Array<{ id: string; arguments: unknown }>;
  /** Reasoning as parts carrying provider data (Responses reasoning items); else `reasoning` is used. */
  reasoningParts?: ReasoningPart[];
  /** The finish reason, when the API's own (`rawFinishReason`) is not a Chat Completions one. */
  finishReason?: FinishReason;
  /** Calls the provider ran (or asks approval for) on its side (Responses MCP, tool search). */
  providerToolCalls?: ProviderToolCall[];
  /** Provider data kept for the next turn, by key (merged into `providerMetadata`). */
  metadata?: Record<string, unknown>;
}

function droppedCallWarning(call: { id: string; arguments: unknown }): ChatWarning {
  const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
  return {
    type: 'other',
    message: `the provider sent a tool call (${call.id}) without a function name; it was dropped (arguments: ${args.slice(0, 200)})`,
  };
}

export interface ResponseContext {
  provider: string;
  request: ChatRequest;
  warnings: ChatWarning[];
  strictToolNames: readonly string[];
  strictResponseFormat: boolean;
}

/** Builds the final response; the same function serves `generate` and the end of `stream`. */
export function assembleResponse(
  parts: OpenAIResponseParts,
  context: ResponseContext,
): ChatResponse {
  const format = context.request.responseFormat;
  if (format && parts.refusal !== '') {
    throw new ProviderError('refusal', {
      provider: context.provider,
      message: `${context.provider}: the model refused to answer in the requested format: ${parts.refusal}`,
      providerData: { refusal: parts.refusal },
    });
  }
  const strict = new Set(context.strictToolNames);
  const toolCalls = parts.toolCalls.map((call) =>
    strict.has(call.name)
      ? {
          ...call,
          providerMetadata: {
            ...call.providerMetadata,
            [context.provider]: { nullMeansAbsent: true },
          },
        }
      : call,
  );
  const response: ChatResponse = {
    // A refusal is the model's answer; it is also kept in providerMetadata.
    text: parts.text === '' ? parts.refusal : parts.text,
    toolCalls,
    finishReason:
      parts.finishReason ?? mapOpenAIFinishReason(parts.rawFinishReason, toolCalls.length > 0),
    usage: parts.usage,
    warnings:
      parts.droppedCalls.length > 0
        ? [...context.warnings, ...parts.droppedCalls.map(droppedCallWarning)]
        : context.warnings,
    modelId: parts.modelId,
  };
  if (parts.rawFinishReason !== undefined) response.rawFinishReason = parts.rawFinishReason;
  if (parts.responseId !== undefined) response.responseId = parts.responseId;
  if (parts.reasoningParts && parts.reasoningParts.length > 0)
    response.reasoning = parts.reasoningParts;
  else if (parts.reasoning !== '')
    response.reasoning = [{ type: 'reasoning', text: parts.reasoning } satisfies ReasoningPart];
  if (parts.providerToolCalls && parts.providerToolCalls.length > 0)
    response.providerToolCalls = parts.providerToolCalls;
  const metadata: Record<string, unknown> = {};
  if (strict.size > 0) {
    // Strict mode made optional arguments nullable: pass `nullMeansAbsent: true` when parsing them.
    metadata.nullMeansAbsent = true;
    metadata.strictTools = [...strict];
  }
  if (parts.refusal !== '') metadata.refusal = parts.refusal;
  if (Object.keys(metadata).length > 0 || parts.metadata)
    response.providerMetadata = {
      ...parts.metadata,
      ...(Object.keys(metadata).length > 0 ? { [context.provider]: metadata } : {}),
    };

  if (format) {
    const parsed = parseToolArguments(format.schema, parts.text, {
      toolName: format.name ?? 'response',
      outputTruncated: response.finishReason === 'length',
      nullMeansAbsent: context.strictResponseFormat,
    });
    if (!parsed.success) throw parsed.error;
    response.object = parsed.value;
    if (parsed.repaired) {
      response.warnings = [
        ...response.warnings,
        {
          type: 'arguments-repaired',
          message: `structured output repaired: ${parsed.repairs.join('; ')}`,
        },
      ];
    }
  }
  return response;
}

// Some compatible servers answer with an array of content parts instead of a string.
function contentText(
  content: string | Array<{ type?: string; text?: string }> | null | undefined,
): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('');
  return '';
}

/** Reads a non-streamed completion into response parts. */
export function readOpenAICompletion(
  completion: OpenAIWireCompletion,
  fallbackModelId: string,
): OpenAIResponseParts {
  const choice = completion.choices?.[0];
  const message = choice?.message;
  const seen = new Set<string>();
  const calls = (message?.tool_calls ?? []).map((call) => {
    // A free-text (`custom`) tool's call carries its text as `input`: arguments `{ input }`.
    const custom = call.type === 'custom' || call.custom !== undefined;
    const name = custom ? call.custom?.name : call.function?.name;
    const args = custom
      ? { input: typeof call.custom?.input === 'string' ? call.custom.input : '' }
      : call.function?.arguments;
    return { call, name, args };
  });
  const droppedCalls = calls
    .filter(({ name }) => !name)
    .map(({ call, args }) => ({
      id: typeof call.id === 'string' && call.id !== '' ? call.id : '(no id)',
      arguments: args ?? '',
    }));
  const toolCalls: ToolCall[] = calls
    .filter(({ name }) => name)
    .map(({ call, name, args }) => {
      let id =
        typeof call.id === 'string' && call.id !== '' && !seen.has(call.id)
          ? call.id
          : generateToolCallId();
      if (seen.has(id)) id = generateToolCallId();
      seen.add(id);
      return { id, name: name!, arguments: args === undefined || args === null ? '' : args };
    });
  return {
    text: contentText(message?.content),
    reasoning: message?.reasoning_content ?? message?.reasoning ?? '',
    refusal: message?.refusal ?? '',
    toolCalls,
    rawFinishReason: choice?.finish_reason ?? undefined,
    usage: mapOpenAIUsage(completion.usage),
    modelId: completion.model ?? fallbackModelId,
    responseId: completion.id,
    droppedCalls,
  };
}
