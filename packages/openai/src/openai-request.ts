import { assertToolChoice, type ChatRequest, type ChatWarning, UsageError } from '@toolwire/schema';
import { convertToOpenAIMessages } from './openai-convert-messages.js';
import {
  prepareOpenAIResponseFormat,
  prepareOpenAITools,
  type OpenAIPrepareToolsSettings,
} from './openai-prepare-tools.js';
import type { OpenAIRequestBody } from './openai-wire.js';

export interface OpenAIRequestSettings extends OpenAIPrepareToolsSettings {
  modelId: string;
  /** Key of `request.providerOptions` whose entries are merged into the body. */
  providerName: string;
  /** `max_completion_tokens` (OpenAI) or `max_tokens` (most compatible servers, xAI). */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /** Ask for a usage chunk at the end of a stream (`stream_options.include_usage`). */
  streamUsage: boolean;
  imageToolResults: 'user-message' | 'text';
}

export interface BuiltOpenAIRequest {
  body: OpenAIRequestBody;
  warnings: ChatWarning[];
  /** Tools sent in strict form: their optional arguments may come back as null (read null as absent). */
  strictToolNames: string[];
  /** Whether the response format was sent strict (null means absent in the answer). */
  strictResponseFormat: boolean;
}

/** Builds the Chat Completions body for a request (no I/O); throws on a request that cannot work. */
export function buildOpenAIRequest(
  request: ChatRequest,
  settings: OpenAIRequestSettings,
  stream: boolean,
): BuiltOpenAIRequest {
  if (!Array.isArray(request.messages))
    throw new UsageError({ message: 'request.messages must be an array of messages' });
  const warnings: ChatWarning[] = [];
  assertToolChoice(
    request.toolChoice,
    (request.tools ?? []).map((tool) => tool.name),
  );
  const body: OpenAIRequestBody = {
    model: settings.modelId,
    messages: convertToOpenAIMessages(
      request.messages,
      { imageToolResults: settings.imageToolResults },
      warnings,
    ),
  };

  const prepared = prepareOpenAITools(request, settings, warnings);
  if (prepared.tools) {
    body.tools = prepared.tools.map(({ name, description, parameters, strict }) => ({
      type: 'function',
      function: { name, description, parameters, ...(strict !== undefined ? { strict } : {}) },
    }));
    const choice = prepared.toolChoice;
    if (choice !== undefined)
      body.tool_choice =
        typeof choice === 'string'
          ? choice
          : { type: 'function', function: { name: choice.toolName } };
    if (prepared.parallelToolCalls !== undefined)
      body.parallel_tool_calls = prepared.parallelToolCalls;
  }

  let strictResponseFormat = false;
  const format = prepareOpenAIResponseFormat(request, settings, warnings);
  if (format) {
    strictResponseFormat = format.strict;
    body.response_format = { type: 'json_schema', json_schema: format };
  }

  if (request.maxOutputTokens !== undefined)
    body[settings.maxTokensField] = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0)
    body.stop = request.stopSequences;
  if (stream) {
    body.stream = true;
    if (settings.streamUsage) body.stream_options = { include_usage: true };
  }
  const extra = request.providerOptions?.[settings.providerName];
  if (extra) Object.assign(body, extra);
  return { body, warnings, strictToolNames: prepared.strictToolNames, strictResponseFormat };
}
