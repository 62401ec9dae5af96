import {
  emptyUsage,
  generateToolCallId,
  parseToolArguments,
  type ChatRequest,
  type ChatResponse,
  type ChatStreamPart,
  type ChatWarning,
  type FinishReason,
  type ReasoningPart,
  type ToolCall,
  type Usage,
} from '@toolwire/schema';
import { GOOGLE_METADATA_KEY, type GoogleCallMetadata } from './google-convert-messages.js';
import type { GoogleWireResponse, GoogleWireUsage } from './google-wire.js';

/** Gemini counts thoughts beside the candidates; `outputTokens` includes them. */
export function mapGoogleUsage(usage: GoogleWireUsage | undefined): Usage {
  if (!usage) return emptyUsage();
  const input = usage.promptTokenCount ?? 0;
  const thoughts = usage.thoughtsTokenCount;
  const output = (usage.candidatesTokenCount ?? 0) + (thoughts ?? 0);
  const out: Usage = {
    inputTokens: input,
    outputTokens: output,
    totalTokens: usage.totalTokenCount ?? input + output,
  };
  if (usage.cachedContentTokenCount !== undefined)
    out.cachedInputTokens = usage.cachedContentTokenCount;
  if (thoughts !== undefined) out.reasoningTokens = thoughts;
  return out;
}

const FILTERED = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'LANGUAGE',
]);

export function mapGoogleFinishReason(
  raw: string | undefined,
  hasToolCalls: boolean,
): FinishReason {
  if (raw === 'MAX_TOKENS') return 'length';
  if (raw !== undefined && FILTERED.has(raw)) return 'content-filter';
  if (raw === 'MALFORMED_FUNCTION_CALL' || raw === 'UNEXPECTED_TOOL_CALL') return 'error';
  if (hasToolCalls) return 'tool-calls';
  if (raw === 'STOP') return 'stop';
  return 'other';
}

interface ResponseContext {
  provider: string;
  request: ChatRequest;
  warnings: ChatWarning[];
}

/**
 * Reads Gemini answers, whole or streamed: each chunk's parts are thoughts (`thought: true`),
 * text or whole `functionCall`s. Signatures are kept where the API put them (a call's in its
 * `providerMetadata.google`, a text part's in the response's, a thought's in the reasoning
 * part) so that the next turn sends them back.
 */
export class GoogleResponseAccumulator {
  private text = '';
  private reasoning = '';
  private reasoningSignature: string | undefined;
  private textSignature: string | undefined;
  private readonly calls: ToolCall[] = [];
  private readonly seenIds = new Set<string>();
  private rawFinishReason: string | undefined;
  private blockReason: string | undefined;
  private usage: GoogleWireUsage | undefined;
  private modelId: string;
  private responseId: string | undefined;

  constructor(fallbackModelId: string) {
    this.modelId = fallbackModelId;
  }

  /** Whether the answer finished (a finish reason, or a blocked prompt). */
  get finished(): boolean {
    return this.rawFinishReason !== undefined || this.blockReason !== undefined;
  }

  push(chunk: GoogleWireResponse): ChatStreamPart[] {
    const out: ChatStreamPart[] = [];
    if (typeof chunk.modelVersion === 'string' && chunk.modelVersion !== '')
      this.modelId = chunk.modelVersion;
    if (typeof chunk.responseId === 'string') this.responseId ??= chunk.responseId;
    if (chunk.usageMetadata) this.usage = chunk.usageMetadata;
    if (chunk.promptFeedback?.blockReason) this.blockReason = chunk.promptFeedback.blockReason;
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall) {
        this.pushCall(part.functionCall, part.thoughtSignature, out);
      } else if (typeof part.text === 'string') {
        if (part.thought) {
          if (part.thoughtSignature) this.reasoningSignature = part.thoughtSignature;
          if (part.text !== '') {
            this.reasoning += part.text;
            out.push({ type: 'reasoning-delta', delta: part.text });
          }
        } else {
          if (part.thoughtSignature) this.textSignature = part.thoughtSignature;
          if (part.text !== '') {
            this.text += part.text;
            out.push({ type: 'text-delta', delta: part.text });
          }
        }
      } else if (part.thoughtSignature) {
        // A part that carries only a signature belongs to the text around it.
        this.textSignature = part.thoughtSignature;
      }
    }
    if (candidate?.finishReason) this.rawFinishReason = candidate.finishReason;
    return out;
  }

  private pushCall(
    call: { id?: string; name?: string; args?: unknown },
    signature: string | undefined,
    out: ChatStreamPart[],
  ): void {
    if (typeof call.name !== 'string' || call.name === '') return;
    const given = typeof call.id === 'string' && call.id !== '' && !this.seenIds.has(call.id);
    const id = given ? call.id! : generateToolCallId();
    this.seenIds.add(id);
    const metadata: GoogleCallMetadata = {
      ...(signature ? { thoughtSignature: signature } : {}),
      ...(given ? {} : { generatedId: true }),
    };
    const args = call.args === undefined || call.args === null ? {} : call.args;
    const toolCall: ToolCall = {
      id,
      name: call.name,
      arguments: args,
      ...(Object.keys(metadata).length > 0
        ? { providerMetadata: { [GOOGLE_METADATA_KEY]: metadata } }
        : {}),
    };
    const index = this.calls.length;
    this.calls.push(toolCall);
    out.push({ type: 'tool-call-start', id, name: call.name, index });
    out.push({
      type: 'tool-call-delta',
      id,
      name: call.name,
      index,
      argumentsDelta: typeof args === 'string' ? args : JSON.stringify(args),
    });
  }

  /** Parts that close a stream: every tool call (`finish` is added by the caller). */
  finishParts(): ChatStreamPart[] {
    return this.calls.map((toolCall) => ({ type: 'tool-call', toolCall }));
  }

  response(context: ResponseContext): ChatResponse {
    const warnings = [...context.warnings];
    if (context.request.parallelToolCalls === false && this.calls.length > 1)
      warnings.push({
        type: 'parallel-calls-ignored',
        message: `the model made ${this.calls.length} calls in one turn although parallelToolCalls was false (Gemini has no switch for it)`,
      });
    const finishReason = this.blockReason
      ? 'content-filter'
      : mapGoogleFinishReason(this.rawFinishReason, this.calls.length > 0);
    const response: ChatResponse = {
      text: this.text,
      toolCalls: [...this.calls],
      finishReason,
      usage: mapGoogleUsage(this.usage),
      warnings,
      modelId: this.modelId,
    };
    const raw = this.rawFinishReason ?? this.blockReason;
    if (raw !== undefined) response.rawFinishReason = raw;
    if (this.responseId !== undefined) response.responseId = this.responseId;
    if (this.reasoning !== '' || this.reasoningSignature) {
      const part: ReasoningPart = { type: 'reasoning', text: this.reasoning };
      if (this.reasoningSignature) part.signature = this.reasoningSignature;
      response.reasoning = [part];
    }
    if (this.textSignature)
      response.providerMetadata = {
        [GOOGLE_METADATA_KEY]: { thoughtSignature: this.textSignature },
      };
    const format = context.request.responseFormat;
    if (format) {
      const parsed = parseToolArguments(format.schema, this.text, {
        toolName: format.name ?? 'response',
        outputTruncated: finishReason === 'length',
      });
      if (!parsed.success) throw parsed.error;
      response.object = parsed.value;
      if (parsed.repaired)
        response.warnings.push({
          type: 'arguments-repaired',
          message: `structured output repaired: ${parsed.repairs.join('; ')}`,
        });
    }
    return response;
  }
}
