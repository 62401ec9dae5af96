import {
  StreamProtocolError,
  generateToolCallId,
  type ChatStreamPart,
  type ToolCall,
} from '@toolwire/schema';
import { readProviderToolCalls } from './anthropic-response.js';
import type { AnthropicContentBlock, AnthropicMessage, AnthropicUsage } from './anthropic-wire.js';

interface OpenBlock {
  type: string;
  text: string;
  signature: string;
  data: string;
  id: string;
  name: string;
  /** The concatenated `input_json_delta` fragments of a tool_use block. */
  json: string;
  /** `content_block_start.input`, used when a server sends the whole input there. */
  startInput: unknown;
  /** Position among the tool calls of this message (what `tool-call-*` parts carry as `index`). */
  toolIndex: number;
  closed: boolean;
  /** `content_block_start.content_block` of a block kind this adapter does not model, kept to replay. */
  raw: Record<string, unknown> | undefined;
}

/** A stream event, loosely typed: unknown event, block and delta types are ignored. */
export interface AnthropicStreamEvent {
  type: string;
  index?: number;
  message?: {
    id?: string;
    model?: string;
    usage?: AnthropicUsage;
    container?: AnthropicMessage['container'];
  };
  content_block?: { type: string; [key: string]: unknown };
  delta?: { type?: string; [key: string]: unknown };
  usage?: AnthropicUsage;
}

/**
 * Assembles Anthropic stream events into typed parts as they arrive, and into the same message
 * `messages.create` would have returned. Tolerant by design: `ping` and unknown events are
 * skipped, an empty `input_json_delta` concatenation means `{}` (no-arg tools), a tool input sent
 * whole in `content_block_start` is used when no deltas follow, and arguments that are not valid
 * JSON are kept as text so the caller's validation reports them instead of running with `{}`.
 */
export class AnthropicStreamAccumulator {
  private readonly blocks = new Map<number, OpenBlock>();
  private readonly order: number[] = [];
  private id: string | undefined;
  private model: string | undefined;
  private usage: AnthropicUsage = {};
  private stopReason: string | null = null;
  private stopSequence: string | null = null;
  private container: AnthropicMessage['container'];
  private toolCount = 0;
  private started = false;
  private stopped = false;
  /** Tool names whose parts are not emitted (the structured-output tool). */
  constructor(private readonly hiddenTools: ReadonlySet<string> = new Set()) {}

  /** `message_stop` arrived: nothing more will come. */
  get done(): boolean {
    return this.stopped;
  }

  /**
   * Whether the message is complete: `message_stop` arrived, or at least `message_delta` with a
   * stop reason (all content precedes it; a transcript cut right before `message_stop` loses nothing).
   */
  get complete(): boolean {
    return this.stopped || this.stopReason !== null;
  }

  /** Feeds one event; returns the parts it produced (often none). */
  push(event: AnthropicStreamEvent): ChatStreamPart[] {
    switch (event.type) {
      case 'message_start':
        this.started = true;
        this.id = event.message?.id;
        this.model = event.message?.model;
        if (event.message?.container) this.container = event.message.container;
        this.mergeUsage(event.message?.usage);
        return [];
      case 'content_block_start':
        return this.start(event);
      case 'content_block_delta':
        return this.delta(event);
      case 'content_block_stop':
        return this.stop(event);
      case 'message_delta': {
        const delta = event.delta ?? {};
        if (typeof delta.stop_reason === 'string') this.stopReason = delta.stop_reason;
        if (typeof delta.stop_sequence === 'string') this.stopSequence = delta.stop_sequence;
        if (delta.container !== null && typeof delta.container === 'object')
          this.container = delta.container as AnthropicMessage['container'];
        this.mergeUsage(event.usage);
        return [];
      }
      case 'message_stop':
        this.stopped = true;
        return this.closeAll();
      default:
        return []; // ping and event types added after this adapter was written
    }
  }

  /** Closes blocks still open at the end of the stream; returns their final parts. */
  end(): ChatStreamPart[] {
    return this.closeAll();
  }

  /** The assembled message; throws when the stream ended before `message_stop`. */
  message(): AnthropicMessage {
    if (!this.complete) {
      throw new StreamProtocolError({
        provider: 'anthropic',
        message: this.started
          ? 'the Anthropic stream ended before message_stop (connection dropped or server closed early)'
          : 'the Anthropic stream ended before message_start: no response was received',
      });
    }
    this.closeAll();
    const content: AnthropicContentBlock[] = this.order.map((index) =>
      this.blockOf(this.blocks.get(index)!),
    );
    return {
      ...(this.id !== undefined ? { id: this.id } : {}),
      ...(this.model !== undefined ? { model: this.model } : {}),
      ...(this.container ? { container: this.container } : {}),
      content,
      stop_reason: this.stopReason,
      stop_sequence: this.stopSequence,
      usage: this.usage,
    };
  }

  private mergeUsage(usage: AnthropicUsage | undefined): void {
    if (!usage) return;
    for (const [key, value] of Object.entries(usage)) {
      if (value !== null && value !== undefined)
        (this.usage as Record<string, unknown>)[key] = value;
    }
  }

  private open(index: number, type: string): OpenBlock {
    const block: OpenBlock = {
      type,
      text: '',
      signature: '',
      data: '',
      id: '',
      name: '',
      json: '',
      startInput: undefined,
      toolIndex: -1,
      closed: false,
      raw: undefined,
    };
    if (!this.blocks.has(index)) this.order.push(index);
    this.blocks.set(index, block);
    return block;
  }

  private start(event: AnthropicStreamEvent): ChatStreamPart[] {
    const source = event.content_block ?? { type: 'unknown' };
    const block = this.open(event.index ?? this.order.length, source.type);
    const parts: ChatStreamPart[] = [];
    if (source.type === 'text' && typeof source.text === 'string' && source.text !== '') {
      block.text = source.text;
      parts.push({ type: 'text-delta', delta: source.text });
    } else if (source.type === 'thinking') {
      block.text = typeof source.thinking === 'string' ? source.thinking : '';
      block.signature = typeof source.signature === 'string' ? source.signature : '';
      if (block.text !== '') parts.push({ type: 'reasoning-delta', delta: block.text });
    } else if (source.type === 'redacted_thinking') {
      block.data = typeof source.data === 'string' ? source.data : '';
    } else if (source.type !== 'text' && source.type !== 'tool_use') {
      block.raw = source;
    }
    if (source.type === 'tool_use') {
      if (source.caller !== undefined) block.raw = source;
      // Some Anthropic-compatible servers send no id; calls still need distinct ones to pair results.
      block.id =
        typeof source.id === 'string' && source.id !== '' ? source.id : generateToolCallId('toolu');
      block.name = String(source.name ?? '');
      block.startInput = source.input;
      block.toolIndex = this.toolCount++;
      if (!this.hiddenTools.has(block.name))
        parts.push({
          type: 'tool-call-start',
          id: block.id,
          name: block.name,
          index: block.toolIndex,
        });
    }
    return parts;
  }

  private delta(event: AnthropicStreamEvent): ChatStreamPart[] {
    const index = event.index ?? this.order[this.order.length - 1] ?? 0;
    const delta = event.delta ?? {};
    // A delta for a block that was never started: open it from the delta's kind.
    const block =
      this.blocks.get(index) ??
      this.open(
        index,
        delta.type === 'input_json_delta'
          ? 'tool_use'
          : delta.type === 'thinking_delta' || delta.type === 'signature_delta'
            ? 'thinking'
            : 'text',
      );
    switch (delta.type) {
      case 'text_delta': {
        const text = String(delta.text ?? '');
        block.text += text;
        return text === '' ? [] : [{ type: 'text-delta', delta: text }];
      }
      case 'thinking_delta': {
        const text = String(delta.thinking ?? '');
        block.text += text;
        return text === '' ? [] : [{ type: 'reasoning-delta', delta: text }];
      }
      case 'signature_delta':
        block.signature += String(delta.signature ?? '');
        return [];
      case 'input_json_delta': {
        const fragment = String(delta.partial_json ?? '');
        block.json += fragment;
        // The input of a call the server runs (tool search, MCP, code execution) is only kept.
        if (block.type !== 'tool_use') return [];
        if (block.toolIndex < 0) block.toolIndex = this.toolCount++;
        if (fragment === '' || this.hiddenTools.has(block.name)) return [];
        return [
          {
            type: 'tool-call-delta',
            id: block.id,
            name: block.name,
            index: block.toolIndex,
            argumentsDelta: fragment,
          },
        ];
      }
      default:
        return [];
    }
  }

  private stop(event: AnthropicStreamEvent): ChatStreamPart[] {
    const block = event.index !== undefined ? this.blocks.get(event.index) : undefined;
    return block ? this.close(block) : [];
  }

  private closeAll(): ChatStreamPart[] {
    return this.order.flatMap((index) => this.close(this.blocks.get(index)!));
  }

  private close(block: OpenBlock): ChatStreamPart[] {
    if (block.closed) return [];
    block.closed = true;
    if (block.raw && block.type !== 'tool_use') {
      // A result block of a call the server ran: the call is complete.
      const [call] = readProviderToolCalls([
        ...this.order.map((index) => this.blockOf(this.blocks.get(index)!)),
      ]).filter((candidate) => candidate.id === block.raw!.tool_use_id);
      return call ? [{ type: 'provider-tool-call', call }] : [];
    }
    if (block.type !== 'tool_use' || this.hiddenTools.has(block.name)) return [];
    const toolCall: ToolCall = { id: block.id, name: block.name, arguments: toolInput(block) };
    return [{ type: 'tool-call', toolCall }];
  }

  private blockOf(block: OpenBlock): AnthropicContentBlock {
    switch (block.type) {
      case 'text':
        return { type: 'text', text: block.text };
      case 'thinking':
        return { type: 'thinking', thinking: block.text, signature: block.signature };
      case 'redacted_thinking':
        return { type: 'redacted_thinking', data: block.data };
      case 'tool_use':
        return {
          type: 'tool_use',
          id: block.id,
          name: block.name,
          input: toolInput(block),
          ...(block.raw?.caller !== undefined
            ? { caller: block.raw.caller as { type?: string } }
            : {}),
        };
      default: {
        if (!block.raw) return { type: block.type };
        const raw =
          block.json.trim() === '' ? block.raw : { ...block.raw, input: toolInput(block) };
        return raw as AnthropicContentBlock;
      }
    }
  }
}

function toolInput(block: OpenBlock): unknown {
  if (block.json.trim() === '') {
    const start = block.startInput;
    return start !== null && typeof start === 'object' && !Array.isArray(start) ? start : {};
  }
  try {
    return JSON.parse(block.json) as unknown;
  } catch {
    return block.json;
  }
}
