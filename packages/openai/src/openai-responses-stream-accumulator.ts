import {
  emptyUsage,
  type ChatStreamPart,
  type ProviderToolCall,
  type ReasoningPart,
  type ToolCall,
  type Usage,
} from '@toolwire/schema';
import type { OpenAIResponseParts } from './openai-response.js';
import {
  messageText,
  mapOpenAIResponsesFinishReason,
  attachSearchOutput,
  providerToolCallOf,
  replayMetadata,
  mapOpenAIResponsesUsage,
  reasoningPartOf,
  responsesFailure,
  uniqueCallId,
} from './openai-responses-response.js';
import type { ResponsesWireItem, ResponsesWireResponse } from './openai-wire.js';

/** One Responses stream event, loosely typed: only the fields this accumulator reads. */
export interface ResponsesStreamEvent {
  type?: string;
  item_id?: string;
  output_index?: number;
  summary_index?: number;
  delta?: unknown;
  arguments?: unknown;
  item?: ResponsesWireItem;
  response?: ResponsesWireResponse;
  [field: string]: unknown;
}

interface CallState {
  itemId: string | undefined;
  outputIndex: number | undefined;
  id: string;
  name: string;
  argumentsText: string;
  started: boolean;
  /** A free-text (`custom_tool_call`) tool's call: the text streams as its input. */
  custom: boolean;
}

interface ReasoningState {
  itemId: string | undefined;
  outputIndex: number | undefined;
  text: string;
  summaryIndex: number;
  item: ResponsesWireItem | undefined;
}

/**
 * Assembles Responses stream events into parts and a final response, with the tolerance of the
 * Chat Completions accumulator: a delta is matched to its item by `item_id`, then by
 * `output_index`, then by order (the latest item of its kind); arguments that arrive only in
 * `response.function_call_arguments.done` or in the finished item (no deltas) are taken from
 * there; a function call seen only in `response.output_item.done` still counts. Reasoning items
 * are kept as the API finished them, to be replayed verbatim.
 */
export class OpenAIResponsesStreamAccumulator {
  private text = '';
  private refusal = '';
  private readonly calls: CallState[] = [];
  private readonly reasoning: ReasoningState[] = [];
  private readonly seenIds = new Set<string>();
  private readonly providerCalls: ProviderToolCall[] = [];
  private final: ResponsesWireResponse | undefined;
  private modelId: string;
  private responseId: string | undefined;

  constructor(
    fallbackModelId: string,
    private readonly provider: string,
  ) {
    this.modelId = fallbackModelId;
  }

  /** Whether the response finished (`response.completed` or `response.incomplete`). */
  get finished(): boolean {
    return this.final !== undefined;
  }

  push(event: ResponsesStreamEvent): ChatStreamPart[] {
    const parts: ChatStreamPart[] = [];
    switch (event.type) {
      case 'response.created':
      case 'response.in_progress':
        this.readHeader(event.response);
        break;
      case 'response.output_item.added':
        if (event.item) this.itemAdded(event.item, event.output_index, parts);
        break;
      case 'response.reasoning_summary_text.delta': {
        if (typeof event.delta !== 'string' || event.delta === '') break;
        const state = this.reasoningFor(event);
        const summaryIndex = event.summary_index ?? state.summaryIndex;
        let delta = event.delta;
        if (summaryIndex > state.summaryIndex && state.text !== '') delta = `\n\n${delta}`;
        state.summaryIndex = summaryIndex;
        state.text += delta;
        parts.push({ type: 'reasoning-delta', delta });
        break;
      }
      case 'response.output_text.delta':
        if (typeof event.delta === 'string' && event.delta !== '') {
          this.text += event.delta;
          parts.push({ type: 'text-delta', delta: event.delta });
        }
        break;
      case 'response.refusal.delta':
        if (typeof event.delta === 'string') this.refusal += event.delta;
        break;
      case 'response.custom_tool_call_input.delta':
      case 'response.function_call_arguments.delta': {
        if (typeof event.delta !== 'string' || event.delta === '') break;
        const call = this.callFor(event);
        if (call) this.appendArguments(call, event.delta, parts);
        break;
      }
      case 'response.function_call_arguments.done': {
        const call = this.callFor(event);
        if (call && typeof event.arguments === 'string')
          this.settleArguments(call, event.arguments, parts);
        break;
      }
      case 'response.custom_tool_call_input.done': {
        const call = this.callFor(event);
        if (call && typeof event.input === 'string') this.settleArguments(call, event.input, parts);
        break;
      }
      case 'response.output_item.done':
        if (event.item) this.itemDone(event.item, event.output_index, parts);
        break;
      case 'response.completed':
      case 'response.incomplete':
        this.readHeader(event.response);
        this.final = event.response ?? {};
        break;
      case 'response.failed':
        throw responsesFailure(this.provider, event.response ?? {});
      default:
        break;
    }
    return parts;
  }

  private readHeader(response: ResponsesWireResponse | undefined): void {
    if (typeof response?.id === 'string' && this.responseId === undefined)
      this.responseId = response.id;
    if (typeof response?.model === 'string' && response.model !== '') this.modelId = response.model;
  }

  private itemAdded(
    item: ResponsesWireItem,
    outputIndex: number | undefined,
    parts: ChatStreamPart[],
  ): void {
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      const call = this.newCall(item, outputIndex);
      this.start(call, parts);
      const text = call.custom ? item.input : item.arguments;
      if (typeof text === 'string' && text !== '') this.appendArguments(call, text, parts);
    } else if (item.type === 'reasoning') {
      this.reasoning.push({
        itemId: item.id,
        outputIndex,
        text: '',
        summaryIndex: 0,
        item: undefined,
      });
    }
  }

  private itemDone(
    item: ResponsesWireItem,
    outputIndex: number | undefined,
    parts: ChatStreamPart[],
  ): void {
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      let call = this.callFor({ item_id: item.id, output_index: outputIndex }, false);
      if (!call) call = this.newCall(item, outputIndex);
      if (call.name === '' && typeof item.name === 'string') call.name = item.name;
      this.start(call, parts);
      const text = call.custom ? item.input : item.arguments;
      if (typeof text === 'string') this.settleArguments(call, text, parts);
    } else if (item.type === 'tool_search_output') {
      const call = attachSearchOutput(this.providerCalls, item);
      if (call) parts.push({ type: 'provider-tool-call', call });
    } else if (providerToolCallOf(item)) {
      const call = providerToolCallOf(item)!;
      this.providerCalls.push(call);
      // A search is reported once its output arrives.
      if (call.name !== 'tool_search') parts.push({ type: 'provider-tool-call', call });
    } else if (item.type === 'reasoning') {
      let state = this.reasoning.find((entry) => item.id !== undefined && entry.itemId === item.id);
      if (!state) {
        state = { itemId: item.id, outputIndex, text: '', summaryIndex: 0, item: undefined };
        this.reasoning.push(state);
      }
      state.item = item;
      // No summary deltas arrived: the finished item has the text.
      const text = reasoningPartOf(item).text;
      if (state.text === '' && text !== '') {
        state.text = text;
        parts.push({ type: 'reasoning-delta', delta: text });
      }
    } else if (item.type === 'message' && this.text === '') {
      const read = messageText(item);
      if (read.text !== '') {
        this.text = read.text;
        parts.push({ type: 'text-delta', delta: read.text });
      }
      if (this.refusal === '') this.refusal = read.refusal;
    }
  }

  private newCall(item: ResponsesWireItem, outputIndex: number | undefined): CallState {
    const call: CallState = {
      itemId: item.id,
      outputIndex,
      id: uniqueCallId(item.call_id, this.seenIds),
      name: typeof item.name === 'string' ? item.name : '',
      argumentsText: '',
      started: false,
      custom: item.type === 'custom_tool_call',
    };
    this.calls.push(call);
    return call;
  }

  private start(call: CallState, parts: ChatStreamPart[]): void {
    if (call.started || call.name === '') return;
    call.started = true;
    parts.push({
      type: 'tool-call-start',
      id: call.id,
      name: call.name,
      index: this.calls.indexOf(call),
    });
  }

  private appendArguments(call: CallState, delta: string, parts: ChatStreamPart[]): void {
    call.argumentsText += delta;
    if (call.started)
      parts.push({
        type: 'tool-call-delta',
        id: call.id,
        name: call.name,
        index: this.calls.indexOf(call),
        argumentsDelta: delta,
      });
  }

  /** The complete arguments from a `.done` event or finished item: only what the deltas missed is added. */
  private settleArguments(call: CallState, complete: string, parts: ChatStreamPart[]): void {
    if (complete === call.argumentsText) return;
    if (complete.startsWith(call.argumentsText))
      this.appendArguments(call, complete.slice(call.argumentsText.length), parts);
    // Deltas that disagree with the final text lose: the final text is what the model sent.
    else call.argumentsText = complete;
  }

  private callFor(event: ResponsesStreamEvent, fallbackToLatest = true): CallState | undefined {
    if (event.item_id !== undefined) {
      const byId = this.calls.find((call) => call.itemId === event.item_id);
      if (byId) return byId;
    }
    if (event.output_index !== undefined) {
      const byIndex = this.calls.find((call) => call.outputIndex === event.output_index);
      if (byIndex) return byIndex;
    }
    return fallbackToLatest ? this.calls.at(-1) : undefined;
  }

  private reasoningFor(event: ResponsesStreamEvent): ReasoningState {
    const found =
      (event.item_id !== undefined
        ? this.reasoning.find((entry) => entry.itemId === event.item_id)
        : undefined) ??
      (event.output_index !== undefined
        ? this.reasoning.find((entry) => entry.outputIndex === event.output_index)
        : undefined) ??
      this.reasoning.at(-1);
    if (found) return found;
    const state: ReasoningState = {
      itemId: event.item_id,
      outputIndex: event.output_index,
      text: '',
      summaryIndex: 0,
      item: undefined,
    };
    this.reasoning.push(state);
    return state;
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
        arguments: call.custom ? { input: call.argumentsText } : call.argumentsText,
      }));
  }

  result(): OpenAIResponseParts {
    const final = this.final ?? {};
    const toolCalls = this.toolCalls();
    const reasoningParts: ReasoningPart[] = this.reasoning.map((state) => ({
      ...(state.item
        ? reasoningPartOf(state.item)
        : { type: 'reasoning' as const, text: state.text }),
      text: state.text,
    }));
    const usage: Usage = final.usage ? mapOpenAIResponsesUsage(final.usage) : emptyUsage();
    const status = final.status ?? undefined;
    const incompleteReason = final.incomplete_details?.reason ?? undefined;
    return {
      text: this.text,
      reasoning: reasoningParts.map((part) => part.text).join(''),
      reasoningParts,
      refusal: this.refusal,
      toolCalls,
      rawFinishReason: status === 'incomplete' && incompleteReason ? incompleteReason : status,
      finishReason: mapOpenAIResponsesFinishReason(
        status,
        incompleteReason,
        toolCalls.length > 0 ||
          this.providerCalls.some((call) => call.approvalRequestId !== undefined && !call.result),
      ),
      usage,
      modelId: this.modelId,
      responseId: this.responseId,
      droppedCalls: this.calls
        .filter((call) => call.name === '')
        .map((call) => ({ id: call.id, arguments: call.argumentsText })),
      ...(this.providerCalls.length > 0 ? { providerToolCalls: this.providerCalls } : {}),
      ...replayMetadata(final.output ?? []),
    };
  }
}
