import type { ToolSpec } from './define-tool.js';
import type { AssistantMessage, Message, ReasoningPart, UserContentPart } from './message.js';
import type { ToolCall } from './tool-call.js';
import type { ToolResult } from './tool-result.js';
import {
  pendingToolCalls,
  repairTranscript,
  validateTranscript,
  type TranscriptIssue,
} from './transcript.js';

export interface ConversationInit {
  system?: string;
  tools?: ToolSpec[];
  messages?: Message[];
}

/**
 * The state of a multi-turn conversation with tools (seed 001, ConversationContext): the
 * messages in provider-neutral form, the tools, the system prompt.
 */
export class Conversation {
  readonly system: string | undefined;
  readonly tools: readonly ToolSpec[];
  private readonly list: Message[];

  constructor(init: ConversationInit = {}) {
    this.system = init.system;
    this.tools = init.tools ?? [];
    this.list = [...(init.messages ?? [])];
  }

  /** Every message, including the system prompt as the first one when set. */
  get messages(): Message[] {
    return this.system === undefined
      ? [...this.list]
      : [{ role: 'system', content: this.system }, ...this.list];
  }

  /** True when the last assistant turn made tool calls that have no results yet. */
  get requiresToolExecution(): boolean {
    return this.pendingToolCalls.length > 0;
  }

  get pendingToolCalls(): ToolCall[] {
    return pendingToolCalls(this.list);
  }

  addUserMessage(content: string | UserContentPart[]): this {
    this.list.push({ role: 'user', content });
    return this;
  }

  addAssistantResponse(response: {
    text: string;
    toolCalls?: ToolCall[];
    reasoning?: ReasoningPart[];
    providerMetadata?: Record<string, unknown>;
  }): this {
    const message: AssistantMessage = { role: 'assistant', content: response.text };
    if (response.toolCalls && response.toolCalls.length > 0) message.toolCalls = response.toolCalls;
    if (response.reasoning && response.reasoning.length > 0) message.reasoning = response.reasoning;
    if (response.providerMetadata) message.providerMetadata = response.providerMetadata;
    this.list.push(message);
    return this;
  }

  /** Adds results for the pending calls; they are put in call order whatever order they came in. */
  addToolResults(results: ToolResult[]): this {
    const order = new Map(this.pendingToolCalls.map((call, index) => [call.id, index]));
    const sorted = [...results].sort(
      (a, b) => (order.get(a.toolCallId) ?? Infinity) - (order.get(b.toolCallId) ?? Infinity),
    );
    const last = this.list[this.list.length - 1];
    if (last?.role === 'tool') last.results.push(...sorted);
    else this.list.push({ role: 'tool', results: sorted });
    return this;
  }

  validate(): TranscriptIssue[] {
    return validateTranscript(this.list);
  }

  /** Fixes the transcript in place (see `repairTranscript`) and returns what was fixed. */
  repair(): string[] {
    const { messages, fixes } = repairTranscript(this.list);
    this.list.splice(0, this.list.length, ...messages);
    return fixes;
  }

  toJSON(): ConversationInit {
    return {
      ...(this.system !== undefined ? { system: this.system } : {}),
      tools: [...this.tools],
      messages: [...this.list],
    };
  }
}
