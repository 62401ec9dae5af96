/**
 * The parts of the Anthropic Messages wire format this adapter writes and reads. Kept narrow and
 * local on purpose: the SDK's own unions cover dozens of server tools we never send, and reading
 * responses through loose types lets unknown block types and fields pass without breaking us.
 */

export type AnthropicImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

export interface AnthropicTextBlockParam {
  type: 'text';
  text: string;
}

export interface AnthropicImageBlockParam {
  type: 'image';
  source: { type: 'base64'; media_type: AnthropicImageMediaType; data: string };
}

export interface AnthropicThinkingBlockParam {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface AnthropicRedactedThinkingBlockParam {
  type: 'redacted_thinking';
  data: string;
}

export interface AnthropicToolUseBlockParam {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** Who made the call: the model (`direct`) or code the server ran (programmatic calling). */
  caller?: Record<string, unknown>;
}

export interface AnthropicToolResultBlockParam {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<AnthropicTextBlockParam | AnthropicImageBlockParam>;
  is_error?: boolean;
}

export type AnthropicContentBlockParam =
  /** A block of an earlier response only the API knows (tool search, MCP, code execution), sent back as it came. */
  | { type: string; [field: string]: unknown }
  | AnthropicTextBlockParam
  | AnthropicImageBlockParam
  | AnthropicThinkingBlockParam
  | AnthropicRedactedThinkingBlockParam
  | AnthropicToolUseBlockParam
  | AnthropicToolResultBlockParam;

export interface AnthropicMessageParam {
  role: 'user' | 'assistant';
  content: string | AnthropicContentBlockParam[];
}

export interface AnthropicToolParam {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  input_examples?: Array<Record<string, unknown>>;
  /** Loaded only when tool search returns it (a `tool_reference`). */
  defer_loading?: boolean;
  /** `direct` and/or the code execution tool version whose code may call it. */
  allowed_callers?: string[];
}

/** A tool entry: a client tool, or one of Anthropic's (tool search, code execution, an MCP toolset). */
export type AnthropicToolUnionParam =
  | AnthropicToolParam
  | { type: 'tool_search_tool_bm25_20251119'; name: 'tool_search_tool_bm25' }
  | { type: 'tool_search_tool_regex_20251119'; name: 'tool_search_tool_regex' }
  | { type: string; name: 'code_execution' }
  | {
      type: 'mcp_toolset';
      mcp_server_name: string;
      default_config?: { enabled?: boolean; defer_loading?: boolean };
      configs?: Record<string, { enabled?: boolean; defer_loading?: boolean }>;
    };

/** A remote MCP server for the MCP connector. */
export interface AnthropicMcpServerParam {
  type: 'url';
  url: string;
  name: string;
  authorization_token?: string;
}

export type AnthropicToolChoiceParam =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  messages: AnthropicMessageParam[];
  system?: string;
  tools?: AnthropicToolUnionParam[];
  tool_choice?: AnthropicToolChoiceParam;
  mcp_servers?: AnthropicMcpServerParam[];
  /** The code execution container of an earlier turn, continued. */
  container?: string;
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  thinking?: { type: string; budget_tokens?: number; [key: string]: unknown };
  stream?: boolean;
  [key: string]: unknown;
}

/** A response content block as read (unknown block types are kept and ignored). */
export type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown; caller?: { type?: string } }
  | { type: string; [key: string]: unknown };

export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
}

/** A whole response message, as returned by `messages.create` or assembled from a stream. */
export interface AnthropicMessage {
  id?: string;
  model?: string;
  /** The code execution container the response ran in, when it used one. */
  container?: { id?: string; expires_at?: string } | null;
  content: AnthropicContentBlock[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: AnthropicUsage;
}
