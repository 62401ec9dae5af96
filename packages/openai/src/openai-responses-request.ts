import {
  assertToolChoice,
  type ChatRequest,
  type ChatWarning,
  type JsonSchema,
} from '@toolwire/schema';
import {
  prepareOpenAIFunctionTools,
  prepareOpenAIResponseFormat,
  type OpenAIRequestSettings,
} from './openai-request.js';
import {
  convertMessagesToResponsesInput,
  type ResponsesInputItem,
} from './openai-responses-input.js';

export interface OpenAIResponsesRequestSettings extends Pick<
  OpenAIRequestSettings,
  'modelId' | 'providerName' | 'schemaDialect' | 'strictTools' | 'strictResponseFormat'
> {
  /** `store` as sent; undefined leaves the API default (stored). */
  store: boolean | undefined;
  /** Ask for `reasoning.encrypted_content` (needed to replay reasoning with `store: false`). */
  encryptedReasoning: boolean;
  /** `reasoning` as sent (`effort`, `summary`); undefined sends none. */
  reasoning: { effort?: string; summary?: string } | undefined;
}

export interface ResponsesToolWire {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: boolean;
}

export interface OpenAIResponsesRequestBody {
  model: string;
  input: ResponsesInputItem[];
  tools?: ResponsesToolWire[];
  tool_choice?: 'auto' | 'none' | 'required' | { type: 'function'; name: string };
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

export interface BuiltOpenAIResponsesRequest {
  body: OpenAIResponsesRequestBody;
  warnings: ChatWarning[];
  strictToolNames: string[];
  strictResponseFormat: boolean;
}

/** Builds the Responses body for a request (no I/O); throws on a request that cannot work. */
export function buildOpenAIResponsesRequest(
  request: ChatRequest,
  settings: OpenAIResponsesRequestSettings,
  stream: boolean,
): BuiltOpenAIResponsesRequest {
  if (!Array.isArray(request.messages))
    throw new TypeError('request.messages must be an array of messages');
  const warnings: ChatWarning[] = [];
  const tools = request.tools ?? [];
  assertToolChoice(
    request.toolChoice,
    tools.map((tool) => tool.name),
  );
  const body: OpenAIResponsesRequestBody = {
    model: settings.modelId,
    input: convertMessagesToResponsesInput(request.messages, warnings),
  };
  let strictToolNames: string[] = [];
  if (tools.length > 0) {
    const prepared = prepareOpenAIFunctionTools(request, settings, warnings);
    strictToolNames = prepared.strictToolNames;
    // The Responses API makes function tools strict unless told otherwise.
    body.tools = prepared.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      strict: tool.strict ?? false,
    }));
    const choice = request.toolChoice;
    if (choice !== undefined)
      body.tool_choice =
        typeof choice === 'string' ? choice : { type: 'function', name: choice.toolName };
    if (request.parallelToolCalls !== undefined)
      body.parallel_tool_calls = request.parallelToolCalls;
  } else if (request.parallelToolCalls !== undefined) {
    warnings.push({
      type: 'unsupported-setting',
      message: 'parallelToolCalls was ignored: the request has no tools',
    });
  }
  const format = prepareOpenAIResponseFormat(request, settings, warnings);
  if (format) body.text = { format: { type: 'json_schema', ...format } };
  if (settings.store !== undefined) body.store = settings.store;
  if (settings.encryptedReasoning) body.include = ['reasoning.encrypted_content'];
  if (settings.reasoning) body.reasoning = settings.reasoning;
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0)
    warnings.push({
      type: 'unsupported-setting',
      message: 'stopSequences was ignored: the Responses API has no stop sequences',
    });
  if (stream) body.stream = true;
  const extra = request.providerOptions?.[settings.providerName];
  if (extra) Object.assign(body, extra);
  return { body, warnings, strictToolNames, strictResponseFormat: format?.strict ?? false };
}
