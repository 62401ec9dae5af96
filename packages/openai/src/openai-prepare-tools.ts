import {
  UsageError,
  type ChatRequest,
  type ChatWarning,
  type JsonSchema,
  type SchemaChange,
  type ToolChoice,
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
}

/** A function tool in the shape both OpenAI APIs share (Chat Completions nests it under `function`). */
interface OpenAIFunctionTool {
  name: string;
  description: string;
  parameters: JsonSchema;
  strict?: boolean;
}

export interface PreparedOpenAITools {
  /** Absent when the request has no tools (then no tool choice or parallel setting is sent). */
  tools?: OpenAIFunctionTool[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  /** Tools sent in strict form: their optional arguments may come back as null (read null as absent). */
  strictToolNames: string[];
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
 * Checks tool names and converts the tools' schemas for OpenAI (strict form per tool when
 * `strictTools` is on and the schema is eligible; each change is a `schema-changed` warning), and
 * says which tool choice and parallel setting go with them. Each API wraps the result in its own
 * wire shape. Without tools, `parallelToolCalls` is dropped with a warning.
 */
export function prepareOpenAITools(
  request: ChatRequest,
  settings: Pick<OpenAIPrepareToolsSettings, 'schemaDialect' | 'strictTools'>,
  warnings: ChatWarning[],
): PreparedOpenAITools {
  const specs = request.tools ?? [];
  if (specs.length === 0) {
    if (request.parallelToolCalls !== undefined)
      warnings.push({
        type: 'unsupported-setting',
        message: 'parallelToolCalls was ignored: the request has no tools',
      });
    return { strictToolNames: [] };
  }
  specs.forEach((tool, i) => {
    if (!NAME_PATTERN.test(tool.name)) {
      throw new UsageError({
        message: `request.tools[${i}].name "${tool.name}" must match ${NAME_PATTERN} (letters, digits, _ and -, at most 64) for OpenAI-compatible APIs`,
      });
    }
  });
  const strictToolNames: string[] = [];
  const tools: OpenAIFunctionTool[] = [];
  if (settings.strictTools) {
    for (const tool of specs) {
      const converted = convertToOpenAISchema(tool.inputSchema, 'openai-strict', {
        toolName: tool.name,
      });
      warnings.push(
        ...schemaWarnings(converted.changes, (c) => `tool "${c.toolName}" schema (strict)`),
      );
      if (converted.strict) strictToolNames.push(tool.name);
      tools.push({
        name: tool.name,
        description: tool.description,
        parameters: converted.schema,
        strict: converted.strict,
      });
    }
  } else {
    for (const tool of specs) {
      const converted = convertToOpenAISchema(tool.inputSchema, settings.schemaDialect, {
        toolName: tool.name,
      });
      warnings.push(...schemaWarnings(converted.changes, (c) => `tool "${c.toolName}" schema`));
      tools.push({ name: tool.name, description: tool.description, parameters: converted.schema });
    }
  }
  return {
    tools,
    ...(request.toolChoice !== undefined ? { toolChoice: request.toolChoice } : {}),
    ...(request.parallelToolCalls !== undefined
      ? { parallelToolCalls: request.parallelToolCalls }
      : {}),
    strictToolNames,
  };
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
