/**
 * The parts of Ollama's `/api/chat` wire format this adapter writes and reads, kept narrow and
 * local: responses are read through loose types so fields added by newer servers pass through.
 */

export interface OllamaToolCallParam {
  function: { name: string; arguments: Record<string, unknown> };
}

export interface OllamaMessageParam {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** Base64 images (no data: prefix); Ollama attaches images to messages, not to parts. */
  images?: string[];
  thinking?: string;
  tool_calls?: OllamaToolCallParam[];
  /** On `role: 'tool'`: which function produced this result. */
  tool_name?: string;
}

export interface OllamaToolParam {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface OllamaRequestBody {
  model: string;
  messages: OllamaMessageParam[];
  tools?: OllamaToolParam[];
  /** A JSON schema (structured output) or `'json'`. */
  format?: Record<string, unknown> | 'json';
  stream?: boolean;
  think?: boolean | 'low' | 'medium' | 'high';
  keep_alive?: string | number;
  options?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A tool call as read: `arguments` is an object on real servers (anything else is kept as sent). */
export interface OllamaToolCallChunk {
  id?: string;
  function?: { index?: number; name?: string; arguments?: unknown };
}

/** One NDJSON line of a stream, or the whole non-streamed response. */
export interface OllamaChatChunk {
  model?: string;
  created_at?: string | Date;
  message?: {
    role?: string;
    content?: string;
    thinking?: string;
    tool_calls?: OllamaToolCallChunk[];
  };
  done?: boolean;
  done_reason?: string;
  total_duration?: number;
  load_duration?: number;
  prompt_eval_count?: number;
  prompt_eval_duration?: number;
  eval_count?: number;
  eval_duration?: number;
  error?: string;
}
