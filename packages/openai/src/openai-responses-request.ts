import { assertToolChoice, type ChatRequest, type ChatWarning, UsageError } from '@toolwire/schema';
import { prepareOpenAIResponseFormat, prepareOpenAITools } from './openai-prepare-tools.js';
import type { OpenAIRequestSettings } from './openai-request.js';
import { convertToOpenAIResponsesMessages } from './openai-responses-convert-messages.js';
import type { OpenAIResponsesRequestBody } from './openai-wire.js';

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
    throw new UsageError({ message: 'request.messages must be an array of messages' });
  const warnings: ChatWarning[] = [];
  assertToolChoice(
    request.toolChoice,
    (request.tools ?? []).map((tool) => tool.name),
  );
  const body: OpenAIResponsesRequestBody = {
    model: settings.modelId,
    input: convertToOpenAIResponsesMessages(request.messages, warnings),
  };
  const prepared = prepareOpenAITools(request, settings, warnings);
  if (prepared.tools) {
    // The Responses API makes function tools strict unless told otherwise.
    body.tools = prepared.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      strict: tool.strict ?? false,
    }));
    const choice = prepared.toolChoice;
    if (choice !== undefined)
      body.tool_choice =
        typeof choice === 'string' ? choice : { type: 'function', name: choice.toolName };
    if (prepared.parallelToolCalls !== undefined)
      body.parallel_tool_calls = prepared.parallelToolCalls;
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
  return {
    body,
    warnings,
    strictToolNames: prepared.strictToolNames,
    strictResponseFormat: format?.strict ?? false,
  };
}
