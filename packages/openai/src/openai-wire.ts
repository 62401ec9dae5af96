/**
 * The parts of the OpenAI wire formats (Chat Completions and Responses) this adapter writes and
 * reads. Kept narrow and local on purpose: responses are read through loose types because
 * compatible servers vary and the API adds fields and item types over time.
 */
import type { JsonSchema } from '@toolwire/schema';

// Chat Completions: request

/** A Chat Completions message as sent on the wire. */
export type OpenAIWireMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | OpenAIUserContentPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAIWireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export type OpenAIUserContentPart =
  { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export type OpenAIWireToolCall =
  | { id: string; type: 'function'; function: { name: string; arguments: string } }
  | { id: string; type: 'custom'; custom: { name: string; input: string } };

/** A grammar as Chat Completions takes it (Responses has the fields one level up). */
export type OpenAIChatCustomFormat =
  { type: 'text' } | { type: 'grammar'; grammar: { syntax: 'lark' | 'regex'; definition: string } };

export type OpenAIToolWire =
  | {
      type: 'function';
      function: { name: string; description: string; parameters: JsonSchema; strict?: boolean };
    }
  | {
      type: 'custom';
      custom: { name: string; description: string; format: OpenAIChatCustomFormat };
    };

export type OpenAIToolChoiceWire =
  | 'auto'
  | 'none'
  | 'required'
  | { type: 'function'; function: { name: string } }
  | { type: 'custom'; custom: { name: string } }
  | {
      type: 'allowed_tools';
      allowed_tools: {
        mode: 'auto' | 'required';
        tools: Array<
          | { type: 'function'; function: { name: string } }
          | { type: 'custom'; custom: { name: string } }
        >;
      };
    };

export interface OpenAIRequestBody {
  model: string;
  messages: OpenAIWireMessage[];
  tools?: OpenAIToolWire[];
  tool_choice?: OpenAIToolChoiceWire;
  parallel_tool_calls?: boolean;
  response_format?: {
    type: 'json_schema';
    json_schema: { name: string; description?: string; schema: JsonSchema; strict: boolean };
  };
  max_completion_tokens?: number;
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  stream?: boolean;
  stream_options?: { include_usage: boolean };
  [extra: string]: unknown;
}

// Chat Completions: response

/** Usage as Chat Completions (and compatible servers) report it. */
export interface OpenAIWireUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** A non-streamed Chat Completions answer, loosely typed: compatible servers vary. */
export interface OpenAIWireCompletion {
  id?: string;
  model?: string;
  choices?: Array<{
    finish_reason?: string | null;
    message?: {
      content?: string | Array<{ type?: string; text?: string }> | null;
      refusal?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: Array<{
        id?: string | null;
        type?: string;
        function?: { name?: string; arguments?: unknown };
        custom?: { name?: string; input?: unknown };
      }> | null;
    };
  }>;
  usage?: OpenAIWireUsage | null;
}

// Responses API: request

export type ResponsesInputContent =
  { type: 'input_text'; text: string } | { type: 'input_image'; image_url: string; detail: 'auto' };

/** One item of a Responses `input` array as sent on the wire. */
export type ResponsesInputItem =
  | { role: 'system' | 'developer' | 'user'; content: string | ResponsesInputContent[] }
  | { role: 'assistant'; content: string }
  | { type: 'function_call'; call_id: string; name: string; arguments: string; namespace?: string }
  | { type: 'function_call_output'; call_id: string; output: string | ResponsesInputContent[] }
  | { type: 'custom_tool_call'; call_id: string; name: string; input: string }
  | { type: 'custom_tool_call_output'; call_id: string; output: string | ResponsesInputContent[] }
  | {
      type: 'mcp_approval_response';
      approval_request_id: string;
      approve: boolean;
      reason?: string;
    }
  /** An output item of an earlier response, sent back as the API returned it. */
  | { type: string; [field: string]: unknown };

export type ResponsesCustomFormat =
  { type: 'text' } | { type: 'grammar'; syntax: 'lark' | 'regex'; definition: string };

export interface ResponsesFunctionToolWire {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: boolean;
  defer_loading?: boolean;
  allowed_callers?: Array<'direct' | 'programmatic'>;
}

export interface ResponsesCustomToolWire {
  type: 'custom';
  name: string;
  description: string;
  format: ResponsesCustomFormat;
  defer_loading?: boolean;
  allowed_callers?: Array<'direct' | 'programmatic'>;
}

export type ResponsesToolWire =
  | ResponsesFunctionToolWire
  | ResponsesCustomToolWire
  | {
      type: 'namespace';
      name: string;
      description: string;
      tools: Array<ResponsesFunctionToolWire | ResponsesCustomToolWire>;
    }
  | { type: 'tool_search' }
  | { type: 'programmatic_tool_calling' }
  | {
      type: 'mcp';
      server_label: string;
      server_url: string;
      server_description?: string;
      authorization?: string;
      headers?: Record<string, string>;
      allowed_tools?: string[];
      require_approval: 'always' | 'never' | { never: { tool_names: string[] } };
      defer_loading?: boolean;
    };

type ResponsesNamedTool = { type: 'function'; name: string } | { type: 'custom'; name: string };

export interface OpenAIResponsesRequestBody {
  model: string;
  input: ResponsesInputItem[];
  tools?: ResponsesToolWire[];
  tool_choice?:
    | 'auto'
    | 'none'
    | 'required'
    | ResponsesNamedTool
    | { type: 'allowed_tools'; mode: 'auto' | 'required'; tools: ResponsesNamedTool[] };
  parallel_tool_calls?: boolean;
  text?: {
    format: {
      type: 'json_schema';
      name: string;
      description?: string;
      schema: JsonSchema;
      strict: boolean;
    };
  };
  store?: boolean;
  include?: string[];
  reasoning?: { effort?: string; summary?: string };
  max_output_tokens?: number;
  temperature?: number;
  top_p?: number;
  stream?: boolean;
  [extra: string]: unknown;
}

// Responses API: response

/** Responses usage as the API reports it (reasoning counted inside `output_tokens`). */
export interface ResponsesWireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  total_tokens?: number | null;
  input_tokens_details?: { cached_tokens?: number | null } | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** One output item, loosely typed (the API adds item types over time). */
export interface ResponsesWireItem {
  type?: string;
  id?: string;
  // message
  role?: string;
  content?: Array<{ type?: string; text?: string; refusal?: string }> | null;
  // function_call, custom_tool_call, mcp_call, mcp_approval_request
  call_id?: string | null;
  name?: string | null;
  arguments?: unknown;
  input?: unknown;
  namespace?: string | null;
  server_label?: string | null;
  output?: unknown;
  error?: unknown;
  // reasoning
  summary?: Array<{ type?: string; text?: string }> | null;
  encrypted_content?: string | null;
  [field: string]: unknown;
}

/** A Responses `response` object, loosely typed. */
export interface ResponsesWireResponse {
  id?: string;
  model?: string;
  status?: string | null;
  error?: { code?: string | null; message?: string | null } | null;
  incomplete_details?: { reason?: string | null } | null;
  output?: ResponsesWireItem[] | null;
  usage?: ResponsesWireUsage | null;
}
