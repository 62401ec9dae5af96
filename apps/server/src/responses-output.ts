// The `output` of a Responses API answer, and its stream events: per model turn, its text (a
// `message` item), then its calls: the client's as `function_call` items (the client runs them),
// the gateway's own as `mcp_call` items with their output (the Responses API's item for a tool an
// MCP server ran for the model). Streamed and final items have the same ids, and each item is
// kept for `item_reference` (under the response's owner).
import type { AgentResult } from '@toolwire/agent';
import {
  toolCallArgumentsText,
  toolResultText,
  type ToolCall,
  type ToolResult,
} from '@toolwire/schema';
import type { StoredItem } from './response-store.js';

export type OutputItem = Record<string, unknown>;

/** The `server_label` of the gateway's calls: the tools come from the gateway's MCP servers. */
const SERVER_LABEL = 'toolwire';

function messageId(responseId: string, step: number): string {
  return `msg_${responseId.replace(/^resp_/, '')}_${step}`;
}

function messageItem(id: string, text: string, status: string): OutputItem {
  return {
    id,
    type: 'message',
    status,
    role: 'assistant',
    content:
      text === '' && status === 'in_progress'
        ? []
        : [{ type: 'output_text', text, annotations: [] }],
  };
}

function functionCallItem(call: ToolCall): OutputItem {
  return {
    id: `fc_${call.id}`,
    type: 'function_call',
    status: 'completed',
    call_id: call.id,
    name: call.name,
    arguments: toolCallArgumentsText(call),
  };
}

function mcpCallItem(call: ToolCall, result: ToolResult | undefined): OutputItem {
  const text = result ? toolResultText(result) : null;
  return {
    id: `mcp_${call.id}`,
    type: 'mcp_call',
    status: result ? 'completed' : 'in_progress',
    server_label: SERVER_LABEL,
    name: call.name,
    arguments: toolCallArgumentsText(call),
    output: result && !result.isError ? text : null,
    error: result?.isError ? (result.error?.message ?? text) : null,
  };
}

/** The call id an `mcp_call` item stands for (its `id` is `mcp_<call id>`). */
export function callIdOfMcpItem(id: string): string {
  return id.replace(/^mcp_/, '');
}

/** The output items of a finished run, and what to keep of each for `item_reference`. */
export function outputItems(
  result: AgentResult,
  responseId: string,
  clientNames: ReadonlySet<string>,
): { items: OutputItem[]; kept: Array<[string, StoredItem]> } {
  const items: OutputItem[] = [];
  const kept: Array<[string, StoredItem]> = [];
  for (const step of result.steps) {
    if (!step.response) continue;
    const text = step.response.text;
    if (text !== '') {
      const id = messageId(responseId, step.index);
      items.push(messageItem(id, text, 'completed'));
      kept.push([id, { kind: 'text', text }]);
    }
    for (const call of step.toolCalls) {
      if (clientNames.has(call.name)) {
        const item = functionCallItem(call);
        items.push(item);
        kept.push([item.id as string, { kind: 'client-call', call }]);
        continue;
      }
      const result = step.toolResults.find((each) => each.toolCallId === call.id);
      const item = mcpCallItem(call, result);
      items.push(item);
      if (result) kept.push([item.id as string, { kind: 'server-call', call, result }]);
    }
  }
  return { items, kept };
}

/**
 * The output items as stream events, in the order `outputItems` lists them: a message item per
 * model turn with text (opened at its first delta, closed when the turn calls a tool or ends), a
 * function call whole, an MCP call when it starts and again when its result is in.
 */
export class OutputStream {
  private next = 0;
  private open: { id: string; step: number; index: number; text: string } | undefined;
  private readonly running = new Map<string, { index: number; call: ToolCall }>();

  constructor(
    private readonly send: (type: string, data: Record<string, unknown>) => void,
    private readonly responseId: string,
    private readonly clientNames: ReadonlySet<string>,
  ) {}

  text(step: number, delta: string): void {
    if (this.open && this.open.step !== step) this.endTurn();
    if (!this.open) {
      this.open = { id: messageId(this.responseId, step), step, index: this.next++, text: '' };
      const { id, index } = this.open;
      this.send('response.output_item.added', {
        output_index: index,
        item: messageItem(id, '', 'in_progress'),
      });
      this.send('response.content_part.added', {
        item_id: id,
        output_index: index,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      });
    }
    this.open.text += delta;
    this.send('response.output_text.delta', {
      item_id: this.open.id,
      output_index: this.open.index,
      content_index: 0,
      delta,
      logprobs: [],
    });
  }

  toolCall(call: ToolCall): void {
    this.endTurn();
    const index = this.next++;
    if (this.clientNames.has(call.name)) {
      const item = functionCallItem(call);
      this.send('response.output_item.added', {
        output_index: index,
        item: { ...item, status: 'in_progress', arguments: '' },
      });
      const position = { item_id: item.id, output_index: index };
      this.send('response.function_call_arguments.delta', { ...position, delta: item.arguments });
      this.send('response.function_call_arguments.done', {
        ...position,
        name: call.name,
        arguments: item.arguments,
      });
      this.send('response.output_item.done', { output_index: index, item });
      return;
    }
    this.running.set(call.id, { index, call });
    this.send('response.output_item.added', {
      output_index: index,
      item: mcpCallItem(call, undefined),
    });
  }

  toolResult(result: ToolResult): void {
    const running = this.running.get(result.toolCallId);
    if (!running) return;
    this.running.delete(result.toolCallId);
    this.send('response.output_item.done', {
      output_index: running.index,
      item: mcpCallItem(running.call, result),
    });
  }

  /** Closes the turn's message item, if one is open. */
  endTurn(): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    const position = { item_id: open.id, output_index: open.index, content_index: 0 };
    this.send('response.output_text.done', { ...position, text: open.text, logprobs: [] });
    this.send('response.content_part.done', {
      ...position,
      part: { type: 'output_text', text: open.text, annotations: [] },
    });
    this.send('response.output_item.done', {
      output_index: open.index,
      item: messageItem(open.id, open.text, 'completed'),
    });
  }

  /** The text streamed so far in the open turn (what a failed response keeps). */
  get partialText(): string {
    return this.open?.text ?? '';
  }
}
