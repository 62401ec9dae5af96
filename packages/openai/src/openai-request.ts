import {
  assertToolChoice,
  convertSchema,
  convertToolSchemas,
  type ChatRequest,
  type ChatWarning,
  type JsonSchema,
  type SchemaChange,
  type SchemaDialect,
} from '@toolwire/schema';
import { convertMessagesToOpenAI, type OpenAIWireMessage } from './openai-convert-messages.js';

export interface OpenAIRequestSettings {
  modelId: string;
  /** Key of `request.providerOptions` whose entries are merged into the body. */
  providerName: string;
  /** `openai` (or `xai`) dialect for tool schemas; `openai-strict` is chosen per tool when strict is on. */
  schemaDialect: Extract<SchemaDialect, 'openai' | 'xai'>;
  /** Send tools with `strict: true` in OpenAI strict form when a schema is eligible. */
  strictTools: boolean;
  /** Send `response_format` schemas in strict form when eligible. */
  strictResponseFormat: boolean;
  /** `max_completion_tokens` (OpenAI) or `max_tokens` (most compatible servers, xAI). */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /** Ask for a usage chunk at the end of a stream (`stream_options.include_usage`). */
  streamUsage: boolean;
  imageToolResults: 'user-message' | 'text';
}

export interface OpenAIToolWire {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema; strict?: boolean };
}

export interface OpenAIRequestBody {
  model: string;
  messages: OpenAIWireMessage[];
  tools?: OpenAIToolWire[];
  tool_choice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
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

export interface BuiltOpenAIRequest {
  body: OpenAIRequestBody;
  warnings: ChatWarning[];
  /** Tools sent in strict form: their optional arguments may come back as null (read null as absent). */
  strictToolNames: string[];
  /** Whether the response format was sent strict (null means absent in the answer). */
  strictResponseFormat: boolean;
}

function schemaWarnings(
  changes: readonly SchemaChange[],
  what: (change: SchemaChange) => string,
): ChatWarning[] {
  return changes.map((change) => ({
    type: 'schema-changed',
    message: `${what(change)}: ${change.message}${change.pointer ? ` at ${change.pointer}` : ''}`,
    ...(change.toolName ? { toolName: change.toolName } : {}),
    pointer: change.pointer,
  }));
}

const NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** Builds the Chat Completions body for a request (no I/O); throws on a request that cannot work. */
export function buildOpenAIRequest(
  request: ChatRequest,
  settings: OpenAIRequestSettings,
  stream: boolean,
): BuiltOpenAIRequest {
  if (!Array.isArray(request.messages))
    throw new TypeError('request.messages must be an array of messages');
  const warnings: ChatWarning[] = [];
  const tools = request.tools ?? [];
  assertToolChoice(
    request.toolChoice,
    tools.map((tool) => tool.name),
  );
  const body: OpenAIRequestBody = {
    model: settings.modelId,
    messages: convertMessagesToOpenAI(
      request.messages,
      { imageToolResults: settings.imageToolResults },
      warnings,
    ),
  };
  const strictToolNames: string[] = [];

  if (tools.length > 0) {
    const prepared = prepareOpenAIFunctionTools(request, settings, warnings);
    strictToolNames.push(...prepared.strictToolNames);
    const wireTools: OpenAIToolWire[] = prepared.tools.map(
      ({ name, description, parameters, strict }) => ({
        type: 'function',
        function: {
          name,
          description,
          parameters,
          ...(strict !== undefined ? { strict } : {}),
        },
      }),
    );
    body.tools = wireTools;
    const choice = request.toolChoice;
    if (choice !== undefined)
      body.tool_choice =
        typeof choice === 'string'
          ? choice
          : { type: 'function', function: { name: choice.toolName } };
    if (request.parallelToolCalls !== undefined)
      body.parallel_tool_calls = request.parallelToolCalls;
  } else if (request.parallelToolCalls !== undefined) {
    warnings.push({
      type: 'unsupported-setting',
      message: 'parallelToolCalls was ignored: the request has no tools',
    });
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
  return { body, warnings, strictToolNames, strictResponseFormat };
}

/** A function tool in the shape both OpenAI APIs share (Chat Completions nests it under `function`). */
export interface OpenAIFunctionTool {
  name: string;
  description: string;
  parameters: JsonSchema;
  strict?: boolean;
}

type ToolSettings = Pick<OpenAIRequestSettings, 'schemaDialect' | 'strictTools'>;

/**
 * Checks tool names and converts the tools' schemas for OpenAI (strict form per tool when
 * `strictTools` is on and the schema is eligible); each change is a `schema-changed` warning.
 */
export function prepareOpenAIFunctionTools(
  request: ChatRequest,
  settings: ToolSettings,
  warnings: ChatWarning[],
): { tools: OpenAIFunctionTool[]; strictToolNames: string[] } {
  const tools = request.tools ?? [];
  tools.forEach((tool, i) => {
    if (!NAME_PATTERN.test(tool.name)) {
      throw new TypeError(
        `request.tools[${i}].name "${tool.name}" must match ${NAME_PATTERN} (letters, digits, _ and -, at most 64) for OpenAI-compatible APIs`,
      );
    }
  });
  const strictToolNames: string[] = [];
  const out: OpenAIFunctionTool[] = [];
  if (settings.strictTools) {
    for (const tool of tools) {
      const converted = convertSchema(tool.inputSchema, 'openai-strict', { toolName: tool.name });
      warnings.push(
        ...schemaWarnings(converted.changes, (c) => `tool "${c.toolName}" schema (strict)`),
      );
      if (converted.strict) strictToolNames.push(tool.name);
      out.push({
        name: tool.name,
        description: tool.description,
        parameters: converted.schema,
        strict: converted.strict,
      });
    }
  } else {
    const converted = convertToolSchemas(tools, settings.schemaDialect);
    warnings.push(...schemaWarnings(converted.changes, (c) => `tool "${c.toolName}" schema`));
    for (const tool of converted.tools)
      out.push({ name: tool.name, description: tool.description, parameters: tool.inputSchema });
  }
  return { tools: out, strictToolNames };
}

/** A JSON-schema response format as both OpenAI APIs take it. */
export interface OpenAIJsonSchemaFormat {
  name: string;
  description?: string;
  schema: JsonSchema;
  strict: boolean;
}

/** Validates and converts `request.responseFormat` (strict form when asked and eligible). */
export function prepareOpenAIResponseFormat(
  request: ChatRequest,
  settings: Pick<OpenAIRequestSettings, 'schemaDialect' | 'strictResponseFormat'>,
  warnings: ChatWarning[],
): OpenAIJsonSchemaFormat | undefined {
  const format = request.responseFormat;
  if (!format) return undefined;
  if (format.type !== 'json' || format.schema === null || typeof format.schema !== 'object') {
    throw new TypeError(
      'request.responseFormat must be { type: "json", schema: <JSON Schema object> }',
    );
  }
  const name = format.name ?? 'response';
  if (!NAME_PATTERN.test(name))
    throw new TypeError(`request.responseFormat.name "${name}" must match ${NAME_PATTERN}`);
  const converted = convertSchema(
    format.schema,
    settings.strictResponseFormat ? 'openai-strict' : settings.schemaDialect,
    { toolName: name },
  );
  warnings.push(...schemaWarnings(converted.changes, () => `response format "${name}" schema`));
  return {
    name,
    ...(format.description !== undefined ? { description: format.description } : {}),
    schema: converted.schema,
    strict: converted.strict,
  };
}
