import {
  emptyUsage,
  generateToolCallId,
  type ChatStreamPart,
  type ToolCall,
  type Usage,
} from '@toolwire/schema';
import { mapOpenAIUsage, type OpenAIResponseParts } from './openai-response.js';
import type { OpenAIWireUsage } from './openai-wire.js';

/** One streamed Chat Completions chunk, loosely typed: compatible servers vary. */
export interface OpenAIWireChunk {
  id?: string;
  model?: string;
  choices?: Array<{
    index?: number;
    finish_reason?: string | null;
    delta?: {
      content?: string | null;
      refusal?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: Array<{
        index?: number;
        id?: string | null;
        type?: string;
        function?: { name?: string | null; arguments?: unknown };
        custom?: { name?: string | null; input?: unknown };
      }> | null;
    } | null;
  }> | null;
  usage?: OpenAIWireUsage | null;
}

interface CallState {
  id: string;
  /** Whether `id` came from the provider (else we made it up). */
  providerId: boolean;
  wireIndex: number | undefined;
  name: string;
  argumentsText: string;
  /** Some compatible servers stream arguments as an object instead of JSON text. */
  argumentsObject: unknown;
  started: boolean;
  /** A free-text (`custom`) tool's call: the text streams as `input`, the arguments are `{ input }`. */
  custom: boolean;
}

/**
 * Assembles Chat Completions stream chunks into parts and a final response. Tolerant of what
 * real servers do: the id only in a call's first delta, a missing `index`, a whole call in one
 * delta (xAI), several calls sharing index 0 with different ids, the same id at several indexes,
 * and object-valued arguments. A delta is matched to a call by id, then by index, then by order
 * (the latest call).
 */
export class OpenAIStreamAccumulator {
  private text = '';
  private reasoning = '';
  private refusal = '';
  private readonly calls: CallState[] = [];
  private rawFinishReason: string | undefined;
  private usage: Usage | undefined;
  private modelId: string;
  private responseId: string | undefined;

  constructor(fallbackModelId: string) {
    this.modelId = fallbackModelId;
  }

  /** Whether a finish reason arrived (a stream that ends without one was cut off). */
  get finished(): boolean {
    return this.rawFinishReason !== undefined;
  }

  /** Consumes one chunk and returns the parts it produced. */
  push(chunk: OpenAIWireChunk): ChatStreamPart[] {
    const parts: ChatStreamPart[] = [];
    if (typeof chunk.id === 'string' && this.responseId === undefined) this.responseId = chunk.id;
    if (typeof chunk.model === 'string' && chunk.model !== '') this.modelId = chunk.model;
    if (chunk.usage) this.usage = mapOpenAIUsage(chunk.usage);
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta ?? {};
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === 'string' && reasoning !== '') {
        this.reasoning += reasoning;
        parts.push({ type: 'reasoning-delta', delta: reasoning });
      }
      if (typeof delta.content === 'string' && delta.content !== '') {
        this.text += delta.content;
        parts.push({ type: 'text-delta', delta: delta.content });
      }
      if (typeof delta.refusal === 'string') this.refusal += delta.refusal;
      for (const entry of delta.tool_calls ?? []) this.pushToolCallDelta(entry, parts);
      if (choice.finish_reason) this.rawFinishReason = choice.finish_reason;
    }
    return parts;
  }

  private pushToolCallDelta(
    entry: NonNullable<
      NonNullable<NonNullable<OpenAIWireChunk['choices']>[number]['delta']>['tool_calls']
    >[number],
    parts: ChatStreamPart[],
  ): void {
    const id = typeof entry.id === 'string' && entry.id !== '' ? entry.id : undefined;
    const wireIndex = typeof entry.index === 'number' ? entry.index : undefined;
    let call: CallState | undefined;
    if (id !== undefined) call = this.calls.find((c) => c.providerId && c.id === id);
    if (call === undefined && id === undefined && wireIndex !== undefined)
      call = findLast(this.calls, (c) => c.wireIndex === wireIndex);
    if (call === undefined && id === undefined && wireIndex === undefined) call = this.calls.at(-1);
    if (call === undefined) {
      call = {
        id: id ?? generateToolCallId(),
        providerId: id !== undefined,
        wireIndex,
        name: '',
        argumentsText: '',
        argumentsObject: undefined,
        started: false,
        custom: false,
      };
      this.calls.push(call);
    }
    if (entry.type === 'custom' || entry.custom) call.custom = true;
    const name = call.custom ? entry.custom?.name : entry.function?.name;
    if (typeof name === 'string' && name !== '' && call.name === '') call.name = name;
    const position = this.calls.indexOf(call);
    if (!call.started && call.name !== '') {
      call.started = true;
      parts.push({ type: 'tool-call-start', id: call.id, name: call.name, index: position });
      if (call.argumentsText !== '')
        parts.push({
          type: 'tool-call-delta',
          id: call.id,
          name: call.name,
          index: position,
          argumentsDelta: call.argumentsText,
        });
    }
    const args = call.custom ? entry.custom?.input : entry.function?.arguments;
    if (typeof args === 'string') {
      if (args === '') return;
      call.argumentsText += args;
      if (call.started)
        parts.push({
          type: 'tool-call-delta',
          id: call.id,
          name: call.name,
          index: position,
          argumentsDelta: args,
        });
    } else if (args !== undefined && args !== null) {
      call.argumentsObject = args;
    }
  }

  /** Parts that close the stream: every tool call, then `finish` is added by the caller. */
  finishParts(): ChatStreamPart[] {
    return this.toolCalls().map((toolCall) => ({ type: 'tool-call', toolCall }));
  }

  private toolCalls(): ToolCall[] {
    return this.calls
      .filter((call) => call.name !== '')
      .map((call) => ({
        id: call.id,
        name: call.name,
        arguments: call.custom
          ? { input: call.argumentsText }
          : call.argumentsObject !== undefined && call.argumentsText === ''
            ? call.argumentsObject
            : call.argumentsText,
      }));
  }

  /** What was assembled, in the shape a non-streamed answer is read into. */
  result(): OpenAIResponseParts {
    return {
      text: this.text,
      reasoning: this.reasoning,
      refusal: this.refusal,
      toolCalls: this.toolCalls(),
      rawFinishReason: this.rawFinishReason,
      usage: this.usage ?? emptyUsage(),
      modelId: this.modelId,
      responseId: this.responseId,
      droppedCalls: this.calls
        .filter((call) => call.name === '')
        .map((call) => ({ id: call.id, arguments: call.argumentsObject ?? call.argumentsText })),
    };
  }
}

function findLast<T>(items: readonly T[], predicate: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i]!)) return items[i];
  return undefined;
}
