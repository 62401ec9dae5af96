import type { ToolApproval } from './provider-tools.js';
import type { ToolCall } from './tool-call.js';
import type { ImagePart, TextPart, ToolResult } from './tool-result.js';

export interface SystemMessage {
  role: 'system';
  content: string;
}

export type UserContentPart = TextPart | ImagePart;

export interface UserMessage {
  role: 'user';
  content: string | UserContentPart[];
}

/** Model reasoning that some providers require back verbatim (Anthropic thinking blocks). */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  /** Anthropic `signature`; providers reject edited or unsigned thinking. */
  signature?: string;
  /** Anthropic `redacted_thinking` data. */
  redactedData?: string;
  /**
   * Provider data to send back verbatim, keyed by provider (the OpenAI Responses reasoning item,
   * with its `encrypted_content`, under `openai-responses`).
   */
  providerMetadata?: Record<string, unknown>;
}

export interface AssistantMessage {
  role: 'assistant';
  /** Text the model produced (may accompany tool calls); '' when none. */
  content: string;
  toolCalls?: ToolCall[];
  reasoning?: ReasoningPart[];
  /** Provider data that must survive a round trip. */
  providerMetadata?: Record<string, unknown>;
}

/**
 * The results of one assistant turn's tool calls, in call order, and the answers to the
 * provider's approval requests of that turn (provider-run tools; `results` may then be empty).
 */
export interface ToolMessage {
  role: 'tool';
  results: ToolResult[];
  approvals?: ToolApproval[];
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

export function userMessageText(message: UserMessage): string {
  return typeof message.content === 'string'
    ? message.content
    : message.content
        .filter((part): part is TextPart => part.type === 'text')
        .map((part) => part.text)
        .join('\n');
}
