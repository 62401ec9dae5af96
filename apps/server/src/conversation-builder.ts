import type {
  AssistantMessage,
  Message,
  ToolCall,
  ToolMessage,
  ToolResult,
} from '@toolwire/schema';
import { openAiError } from './openai-error.js';

/**
 * Builds a conversation from an OpenAI client's messages or input items, in order: text, tool
 * calls (the client's, and the gateway's own with their results) and the client's tool outputs.
 * Consecutive calls and text of one model turn make one assistant message; the outputs of its
 * calls go in the tool message right after it, wherever in the input they come.
 */
export class ConversationBuilder {
  private readonly messages: Message[];
  /** The assistant message of the turn being built, and whether a client output already answered one of its calls. */
  private turn: { assistant: AssistantMessage; answered: boolean } | undefined;

  /** `prefix`: the conversation so far (a stored response's, for `previous_response_id`). */
  constructor(prefix: readonly Message[] = []) {
    this.messages = [...prefix];
    const last = this.messages.at(-1);
    const before = this.messages.at(-2);
    if (last?.role === 'assistant') this.turn = { assistant: last, answered: false };
    else if (last?.role === 'tool' && before?.role === 'assistant')
      this.turn = { assistant: before, answered: false };
  }

  user(content: string): void {
    this.messages.push({ role: 'user', content });
    this.turn = undefined;
  }

  /** Text the model wrote: part of its turn, unless the turn's calls already have results. */
  assistantText(text: string): void {
    if (this.turn && this.resultsOf(this.turn.assistant).length === 0) {
      const current = this.turn.assistant;
      current.content = current.content === '' ? text : `${current.content}\n${text}`;
      return;
    }
    this.startTurn({ role: 'assistant', content: text });
  }

  /** A call the model made: the client's (no result yet) or the gateway's own (with its result). */
  call(call: ToolCall, result?: ToolResult): void {
    if (!this.turn || this.turn.answered) this.startTurn({ role: 'assistant', content: '' });
    const assistant = this.turn!.assistant;
    assistant.toolCalls = [...(assistant.toolCalls ?? []), call];
    if (result) this.toolMessageAfter(assistant).results.push(result);
  }

  /** A whole assistant message (Chat Completions), with results of the gateway's calls in it. */
  assistant(message: AssistantMessage, serverResults: readonly ToolResult[] = []): void {
    this.startTurn({ ...message });
    if (serverResults.length > 0)
      this.toolMessageAfter(this.turn!.assistant).results.push(...serverResults);
  }

  /** Earlier messages the gateway kept (a chat's calls it ran itself), as they were. */
  restore(messages: readonly Message[]): void {
    this.messages.push(...messages);
    this.turn = undefined;
  }

  /** The client's output of one of the calls: a tool result right after the call's assistant message. */
  result(callId: string, text: string, path: string): void {
    const assistant = this.messages.findLast(
      (message): message is AssistantMessage =>
        message.role === 'assistant' && (message.toolCalls ?? []).some((c) => c.id === callId),
    );
    const call = assistant?.toolCalls?.find((each) => each.id === callId);
    if (!assistant || !call)
      throw openAiError(
        400,
        `${path}: no tool call "${callId}" before it in the conversation`,
        path,
        'invalid_value',
      );
    const results = this.toolMessageAfter(assistant).results;
    if (results.some((result) => result.toolCallId === callId))
      throw openAiError(400, `${path}: a second output for "${callId}"`, path, 'invalid_value');
    results.push({
      toolCallId: callId,
      toolName: call.name,
      content: [{ type: 'text', text }],
      isError: false,
    });
    if (this.turn?.assistant === assistant) this.turn.answered = true;
  }

  /** The conversation; every call must have its result by now (`path` names the input). */
  finish(path: string): Message[] {
    this.messages.forEach((message, index) => {
      if (message.role !== 'assistant' || !message.toolCalls?.length) return;
      const next = this.messages[index + 1];
      const results = next?.role === 'tool' ? next.results : [];
      const missing = message.toolCalls.find(
        (call) => !results.some((result) => result.toolCallId === call.id),
      );
      if (missing)
        throw openAiError(
          400,
          `${path}: the tool call "${missing.id}" (${missing.name}) has no output; send it after the call`,
          path,
          'invalid_value',
        );
      // In call order, as the providers read them.
      const order = message.toolCalls.map((call) => call.id);
      results.sort((a, b) => order.indexOf(a.toolCallId) - order.indexOf(b.toolCallId));
    });
    return this.messages;
  }

  private startTurn(assistant: AssistantMessage): void {
    this.messages.push(assistant);
    this.turn = { assistant, answered: false };
  }

  private resultsOf(assistant: AssistantMessage): ToolResult[] {
    const next = this.messages[this.messages.indexOf(assistant) + 1];
    return next?.role === 'tool' ? next.results : [];
  }

  private toolMessageAfter(assistant: AssistantMessage): ToolMessage {
    const index = this.messages.indexOf(assistant);
    const next = this.messages[index + 1];
    if (next?.role === 'tool') return next;
    const created: ToolMessage = { role: 'tool', results: [] };
    this.messages.splice(index + 1, 0, created);
    return created;
  }
}
