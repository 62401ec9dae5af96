import {
  StreamProtocolError,
  generateToolCallId,
  type ChatStreamPart,
  type ToolCall,
} from '@toolwire/schema';
import type { OllamaChatChunk } from './ollama-wire.js';

/** What the chunks of one answer add up to. */
export interface OllamaAssembled {
  model: string | undefined;
  text: string;
  thinking: string;
  toolCalls: ToolCall[];
  doneReason: string | undefined;
  promptEvalCount: number | undefined;
  evalCount: number | undefined;
  durations: Record<string, number>;
}

const DURATIONS = [
  'total_duration',
  'load_duration',
  'prompt_eval_duration',
  'eval_duration',
] as const;

/**
 * Assembles Ollama chunks (NDJSON lines, or the one object of a non-streamed answer) into typed
 * parts and a final answer. Tool calls arrive whole (arguments as objects) on a `done:false` line
 * or on the `done:true` line; each gets the server's `id` or a generated one (older servers send
 * none), and is emitted as start, one arguments delta and the call.
 */
export class OllamaStreamAccumulator {
  private readonly assembled: OllamaAssembled = {
    model: undefined,
    text: '',
    thinking: '',
    toolCalls: [],
    doneReason: undefined,
    promptEvalCount: undefined,
    evalCount: undefined,
    durations: {},
  };
  private finished = false;

  get done(): boolean {
    return this.finished;
  }

  push(chunk: OllamaChatChunk): ChatStreamPart[] {
    const parts: ChatStreamPart[] = [];
    if (chunk.model !== undefined) this.assembled.model = chunk.model;
    const message = chunk.message;
    if (typeof message?.thinking === 'string' && message.thinking !== '') {
      this.assembled.thinking += message.thinking;
      parts.push({ type: 'reasoning-delta', delta: message.thinking });
    }
    if (typeof message?.content === 'string' && message.content !== '') {
      this.assembled.text += message.content;
      parts.push({ type: 'text-delta', delta: message.content });
    }
    for (const raw of message?.tool_calls ?? []) {
      const index = this.assembled.toolCalls.length;
      const id = typeof raw.id === 'string' && raw.id !== '' ? raw.id : generateToolCallId('call');
      const name = String(raw.function?.name ?? '');
      const args = raw.function?.arguments ?? {};
      const toolCall: ToolCall = { id, name, arguments: args };
      this.assembled.toolCalls.push(toolCall);
      parts.push(
        { type: 'tool-call-start', id, name, index },
        {
          type: 'tool-call-delta',
          id,
          name,
          index,
          argumentsDelta: typeof args === 'string' ? args : JSON.stringify(args),
        },
        { type: 'tool-call', toolCall },
      );
    }
    if (chunk.done) {
      this.finished = true;
      this.assembled.doneReason = chunk.done_reason;
      if (typeof chunk.prompt_eval_count === 'number')
        this.assembled.promptEvalCount = chunk.prompt_eval_count;
      if (typeof chunk.eval_count === 'number') this.assembled.evalCount = chunk.eval_count;
      for (const key of DURATIONS) {
        const value = chunk[key];
        if (typeof value === 'number') this.assembled.durations[key] = value;
      }
    }
    return parts;
  }

  /** The assembled answer; throws when the final `done: true` chunk never came. */
  result(): OllamaAssembled {
    if (!this.finished) {
      throw new StreamProtocolError({
        provider: 'ollama',
        message:
          'the Ollama stream ended before its done:true line (connection dropped or server closed early)',
      });
    }
    return this.assembled;
  }
}
