import {
  assertToolChoice,
  UsageError,
  type ChatRequest,
  type ChatWarning,
  type ToolInputFormat,
} from '@toolwire/schema';
import { convertToOpenAIMessages } from './openai-convert-messages.js';
import {
  assertNoMcpServers,
  prepareOpenAIResponseFormat,
  prepareOpenAITools,
  type OpenAIPrepareToolsSettings,
} from './openai-prepare-tools.js';
import type { OpenAIChatCustomFormat, OpenAIRequestBody, OpenAIToolWire } from './openai-wire.js';

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
  /** Tools sent as free-text (`custom`) tools: their calls carry `{ input }`. */
  customToolNames: string[];
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
    messages: [],
  };

  assertNoMcpServers(request, 'Chat Completions');
  const prepared = prepareOpenAITools(request, settings, warnings);
  body.messages = convertToOpenAIMessages(
    request.messages,
    {
      imageToolResults: settings.imageToolResults,
      customToolNames: new Set(prepared.customToolNames),
    },
    warnings,
  );
  if (prepared.tools) {
    body.tools = prepared.tools.map((tool): OpenAIToolWire => {
      if (tool.kind === 'custom')
        return {
          type: 'custom',
          custom: {
            name: tool.name,
            description: tool.description,
            format: chatFormat(tool.format),
          },
        };
      const { name, description, parameters, strict } = tool;
      return {
        type: 'function',
        function: { name, description, parameters, ...(strict !== undefined ? { strict } : {}) },
      };
    });
    const custom = new Set(prepared.customToolNames);
    const named = (name: string) =>
      custom.has(name)
        ? { type: 'custom' as const, custom: { name } }
        : { type: 'function' as const, function: { name } };
    const choice = prepared.toolChoice;
    if (choice !== undefined)
      body.tool_choice =
        typeof choice === 'string'
          ? choice
          : choice.type === 'tool'
            ? named(choice.toolName)
            : {
                type: 'allowed_tools',
                allowed_tools: { mode: choice.mode ?? 'auto', tools: choice.toolNames.map(named) },
              };
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
  return {
    body,
    warnings,
    strictToolNames: prepared.strictToolNames,
    customToolNames: prepared.customToolNames,
    strictResponseFormat,
  };
}

function chatFormat(format: ToolInputFormat): OpenAIChatCustomFormat {
  return format.type === 'text'
    ? { type: 'text' }
    : { type: 'grammar', grammar: { syntax: format.syntax, definition: format.definition } };
}
