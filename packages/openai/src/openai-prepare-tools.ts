import {
  describeWithExamples,
  plainFunctionTool,
  UnsupportedFeatureError,
  UsageError,
  type ChatRequest,
  type ChatWarning,
  type JsonSchema,
  type SchemaChange,
  type ToolCaller,
  type ToolChoice,
  type ToolInputFormat,
} from '@toolwire/schema';
import { convertToOpenAISchema, type OpenAISchemaDialect } from './openai-schema-dialect.js';

/** The settings tool and response-format preparation reads (both OpenAI APIs share them). */
export interface OpenAIPrepareToolsSettings {
  /** `openai` (or `xai`) dialect for tool schemas; `openai-strict` is chosen per tool when strict is on. */
  schemaDialect: Extract<OpenAISchemaDialect, 'openai' | 'xai'>;
  /** Send tools with `strict: true` in OpenAI strict form when a schema is eligible. */
  strictTools: boolean;
  /** Send response-format schemas in strict form when eligible. */
  strictResponseFormat: boolean;
  /**
   * Whether the server has OpenAI's newer tool fields (OpenAI itself): free-text tools (`custom`
   * with a grammar), `allowed_tools`. Compatible servers get plain function tools instead.
   */
  nativeToolFeatures: boolean;
}

/** A tool in the shape both OpenAI APIs share; each API wraps it in its own wire shape. */
export type OpenAIPreparedTool =
  | {
      kind: 'function';
      name: string;
      description: string;
      parameters: JsonSchema;
      strict?: boolean;
      /** Responses only: loaded through tool search. */
      deferLoading?: boolean;
      /** Responses only: who may call it. */
      allowedCallers?: ToolCaller[];
    }
  | {
      kind: 'custom';
      name: string;
      description: string;
      format: ToolInputFormat;
      deferLoading?: boolean;
      allowedCallers?: ToolCaller[];
    };

export interface PreparedOpenAITools {
  /** Absent when the request has no tools (then no tool choice or parallel setting is sent). */
  tools?: OpenAIPreparedTool[];
  /** The choice to send; an `allowed` set the server cannot take was narrowed into `tools`. */
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  /** Tools sent in strict form: their optional arguments may come back as null (read null as absent). */
  strictToolNames: string[];
  /** Tools sent as free-text (`custom`) tools: their calls carry `{ input }`. */
  customToolNames: string[];
}

/** A JSON-schema response format as both OpenAI APIs take it. */
export interface OpenAIJsonSchemaFormat {
  name: string;
  description?: string;
  schema: JsonSchema;
  strict: boolean;
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

/**
 * Checks tool names and converts the tools for OpenAI: schemas in the chosen dialect (strict form
 * per tool when `strictTools` is on and the schema is eligible; each change is a `schema-changed`
 * warning), input examples in the description, free-text tools as `custom` tools on OpenAI itself
 * (one string elsewhere). With `responses` the Responses-only fields are kept (`deferLoading`,
 * `allowedCallers`); otherwise a tool only code may call is offered to the model, with a warning.
 * Without tools, `parallelToolCalls` is dropped with a warning. An `allowed` tool choice a server
 * cannot take natively is sent as the narrower tool list.
 */
export function prepareOpenAITools(
  request: ChatRequest,
  settings: Pick<
    OpenAIPrepareToolsSettings,
    'schemaDialect' | 'strictTools' | 'nativeToolFeatures'
  >,
  warnings: ChatWarning[],
  options: { responses?: boolean } = {},
): PreparedOpenAITools {
  let specs = request.tools ?? [];
  if (specs.length === 0) {
    if (request.parallelToolCalls !== undefined)
      warnings.push({
        type: 'unsupported-setting',
        message: 'parallelToolCalls was ignored: the request has no tools',
      });
    return { strictToolNames: [], customToolNames: [] };
  }
  specs.forEach((tool, i) => {
    if (!NAME_PATTERN.test(tool.name)) {
      throw new UsageError({
        field: `request.tools[${i}].name`,
        message: `request.tools[${i}].name "${tool.name}" must match ${NAME_PATTERN} (letters, digits, _ and -, at most 64) for OpenAI-compatible APIs`,
      });
    }
  });
  let toolChoice = request.toolChoice;
  if (
    typeof toolChoice === 'object' &&
    toolChoice.type === 'allowed' &&
    !settings.nativeToolFeatures
  ) {
    // No `allowed_tools` here: the model is shown only the allowed tools.
    const allowed = new Set(toolChoice.toolNames);
    specs = specs.filter((tool) => allowed.has(tool.name));
    toolChoice = toolChoice.mode === 'required' ? 'required' : 'auto';
  }
  const strictToolNames: string[] = [];
  const customToolNames: string[] = [];
  const tools = specs.map((spec): OpenAIPreparedTool => {
    const responsesFields = options.responses
      ? {
          ...(spec.deferred ? { deferLoading: true } : {}),
          ...(spec.allowedCallers ? { allowedCallers: spec.allowedCallers } : {}),
        }
      : {};
    if (!options.responses && spec.allowedCallers && !spec.allowedCallers.includes('direct'))
      warnings.push({
        type: 'unsupported-setting',
        toolName: spec.name,
        message: `tool "${spec.name}" is for programmatic calls only, which this API does not have; it is offered to the model`,
      });
    if (spec.inputFormat && settings.nativeToolFeatures) {
      customToolNames.push(spec.name);
      return {
        kind: 'custom',
        name: spec.name,
        description: describeWithExamples(spec),
        format: spec.inputFormat,
        ...responsesFields,
      };
    }
    const plain = plainFunctionTool(spec);
    if (settings.strictTools) {
      const converted = convertToOpenAISchema(plain.inputSchema, 'openai-strict', {
        toolName: spec.name,
      });
      warnings.push(
        ...schemaWarnings(converted.changes, (c) => `tool "${c.toolName}" schema (strict)`),
      );
      if (converted.strict) strictToolNames.push(spec.name);
      return {
        kind: 'function',
        name: spec.name,
        description: plain.description,
        parameters: converted.schema,
        strict: converted.strict,
        ...responsesFields,
      };
    }
    const converted = convertToOpenAISchema(plain.inputSchema, settings.schemaDialect, {
      toolName: spec.name,
    });
    warnings.push(...schemaWarnings(converted.changes, (c) => `tool "${c.toolName}" schema`));
    return {
      kind: 'function',
      name: spec.name,
      description: plain.description,
      parameters: converted.schema,
      ...responsesFields,
    };
  });
  return {
    tools,
    ...(toolChoice !== undefined ? { toolChoice } : {}),
    ...(request.parallelToolCalls !== undefined
      ? { parallelToolCalls: request.parallelToolCalls }
      : {}),
    strictToolNames,
    customToolNames,
  };
}

/** Refuses provider-run MCP servers on an API that cannot run them. */
export function assertNoMcpServers(request: ChatRequest, api: string): void {
  if ((request.mcpServers?.length ?? 0) === 0) return;
  throw new UnsupportedFeatureError({
    feature: 'mcpServers',
    message: `${api} cannot call remote MCP servers for the model (request.mcpServers); use the Responses API (createOpenAI().responses(model)) or @toolwire/anthropic`,
  });
}

/** Validates and converts `request.responseFormat` (strict form when asked and eligible). */
export function prepareOpenAIResponseFormat(
  request: ChatRequest,
  settings: Pick<OpenAIPrepareToolsSettings, 'schemaDialect' | 'strictResponseFormat'>,
  warnings: ChatWarning[],
): OpenAIJsonSchemaFormat | undefined {
  const format = request.responseFormat;
  if (!format) return undefined;
  if (format.type !== 'json' || format.schema === null || typeof format.schema !== 'object') {
    throw new UsageError({
      message: 'request.responseFormat must be { type: "json", schema: <JSON Schema object> }',
    });
  }
  const name = format.name ?? 'response';
  if (!NAME_PATTERN.test(name))
    throw new UsageError({
      message: `request.responseFormat.name "${name}" must match ${NAME_PATTERN}`,
    });
  const converted = convertToOpenAISchema(
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
