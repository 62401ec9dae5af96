import type { ToolSpec } from './define-tool.js';
import { StreamProtocolError } from './provider-errors.js';
import type { JsonSchema } from './json-schema.js';
import type { Message, ReasoningPart } from './message.js';
import type { ProviderToolCall, RemoteMcpServer } from './provider-tools.js';
import type { ToolCall } from './tool-call.js';
import type { ToolChoice } from './tool-choice.js';

export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Input tokens served from the provider's prompt cache, when reported. */
  cachedInputTokens?: number;
  /** Input tokens written to the prompt cache (Anthropic), when reported. */
  cacheWriteInputTokens?: number;
  /** Output tokens spent on reasoning, when reported. */
  reasoningTokens?: number;
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
}

/** Adds usages (for a loop of several steps). Optional counters stay absent unless some step had them. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  for (const key of ['cachedInputTokens', 'cacheWriteInputTokens', 'reasoningTokens'] as const) {
    if (a[key] !== undefined || b[key] !== undefined) sum[key] = (a[key] ?? 0) + (b[key] ?? 0);
  }
  return sum;
}

/** Ask for JSON matching a schema (structured output); adapters use native support or a forced tool. */
export interface ResponseFormat {
  type: 'json';
  schema: JsonSchema;
  name?: string;
  description?: string;
}

export interface ChatRequest {
  messages: Message[];
  tools?: ToolSpec[];
  toolChoice?: ToolChoice;
  /** Allow several tool calls in one turn (default: the provider's default, which is on). */
  parallelToolCalls?: boolean;
  /**
   * Remote MCP servers the provider calls for the model (OpenAI Responses, Anthropic). Providers
   * without this fail the request with `UnsupportedFeatureError`.
   */
  mcpServers?: RemoteMcpServer[];
  responseFormat?: ResponseFormat;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  signal?: AbortSignal;
  /** Extra HTTP headers for this request. */
  headers?: Record<string, string>;
  /** Provider-specific settings, keyed by provider name; passed through untouched. */
  providerOptions?: Record<string, Record<string, unknown>>;
}

export type WarningKind =
  | 'tool-choice-ignored'
  | 'tool-choice-downgraded'
  | 'schema-changed'
  | 'tool-dropped'
  | 'unsupported-setting'
  | 'parallel-calls-ignored'
  | 'image-as-text'
  | 'arguments-repaired'
  | 'transcript-repaired'
  | 'other';

export interface ChatWarning {
  type: WarningKind;
  message: string;
  toolName?: string;
  /** JSON pointer into the tool schema, for schema changes. */
  pointer?: string;
}

export interface ChatResponse {
  /** All text of the answer ('' when the model only called tools). */
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  /** The provider's own finish reason, unchanged. */
  rawFinishReason?: string;
  usage: Usage;
  reasoning?: ReasoningPart[];
  /** With `responseFormat`: the parsed (and repaired, validated) JSON value. */
  object?: unknown;
  /**
   * Calls the provider ran on its side (remote MCP servers, its tool search), in order, and those
   * waiting for the caller's approval (`approvalRequestId`). When some wait, the turn is not over:
   * answer them in the next request (see `ToolApproval`).
   */
  providerToolCalls?: ProviderToolCall[];
  warnings: ChatWarning[];
  /** The model that answered, as the provider names it. */
  modelId: string;
  responseId?: string;
  providerMetadata?: Record<string, unknown>;
}

/** Typed parts of a streamed response; the last part is always `finish` (or an error is thrown). */
export type ChatStreamPart =
  | { type: 'text-delta'; delta: string }
  | { type: 'reasoning-delta'; delta: string }
  | { type: 'tool-call-start'; id: string; name: string; index: number }
  | { type: 'tool-call-delta'; id: string; name: string; index: number; argumentsDelta: string }
  | { type: 'tool-call'; toolCall: ToolCall }
  | { type: 'provider-tool-call'; call: ProviderToolCall }
  | { type: 'warning'; warning: ChatWarning }
  | { type: 'finish'; response: ChatResponse };

export interface ModelCapabilities {
  toolCalling: boolean;
  parallelToolCalls: boolean;
  streamingToolCalls: boolean;
  /** Which tool choices the provider enforces; others are emulated or checked after the fact. */
  toolChoice: { auto: boolean; none: boolean; required: boolean; specific: boolean };
  imagesInToolResults: boolean;
  imagesInUserMessages: boolean;
  strictSchemas: boolean;
  /** How structured output is obtained: native JSON schema, JSON mode, a forced tool, or not at all. */
  structuredOutput: 'json-schema' | 'json-object' | 'tool' | 'none';
  /** Whether the provider reports usage when streaming. */
  streamingUsage: boolean;
}

/** What every provider adapter implements. */
export interface ChatModel {
  /** e.g. 'openai', 'anthropic', 'ollama', 'xai'. */
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  generate(request: ChatRequest): Promise<ChatResponse>;
  /** Streams parts as they arrive; the final `finish` part holds the same response `generate` gives. */
  stream(request: ChatRequest): AsyncIterable<ChatStreamPart>;
}

/** Drains a stream and returns its final response (what `generate` would have returned). */
export async function collectStream(stream: AsyncIterable<ChatStreamPart>): Promise<ChatResponse> {
  let response: ChatResponse | undefined;
  for await (const part of stream) if (part.type === 'finish') response = part.response;
  if (!response)
    throw new StreamProtocolError({
      provider: 'unknown',
      message: 'the stream ended without a finish part',
    });
  return response;
}
