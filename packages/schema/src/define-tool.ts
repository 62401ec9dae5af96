import type { Static, TSchema } from '@sinclair/typebox';
import { InvalidToolDefinitionError, formatIssues, type Issue } from './errors.js';
import { isPlainObject, joinPointer, type JsonSchema } from './json-schema.js';
import { getSchemaValidator, SchemaCompileError } from './schema-validator.js';
import type { ToolResultPart } from './tool-result.js';
import type { ToolSource } from './tool-source.js';

/** MCP tool annotations: hints about behaviour, used by policy, caching, retries and approval. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

/**
 * A tool whose input is free text instead of JSON arguments (OpenAI custom tools): unconstrained
 * `text`, or text that matches a `grammar` (Lark or a regular expression). Its `inputSchema` is
 * `TEXT_INPUT_SCHEMA` (one string, `input`), which is also how it is offered where the provider
 * has no such tools.
 */
export type ToolInputFormat =
  { type: 'text' } | { type: 'grammar'; syntax: 'lark' | 'regex'; definition: string };

/** Who may call a tool: the model itself, or code the provider runs for it (programmatic calling). */
export type ToolCaller = 'direct' | 'programmatic';

/** What a model is shown about a tool: provider-neutral, serialisable. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  /**
   * Keep the tool out of the prompt until the model finds it with tool search: the provider's own
   * (Anthropic `defer_loading` with its tool-search tool, OpenAI Responses `tool_search`) or, where
   * there is none, a search tool the adapter offers and answers itself (`ClientToolSearch`).
   */
  deferred?: boolean;
  /**
   * Example inputs, each valid against `inputSchema`: Anthropic's `input_examples`; elsewhere they
   * are added to the description.
   */
  inputExamples?: Array<Record<string, unknown>>;
  /**
   * Who may call the tool (default: the model only). `programmatic` lets code the provider runs call
   * it (Anthropic's code execution, OpenAI's programmatic tool calling); providers without that
   * offer it to the model directly.
   */
  allowedCallers?: ToolCaller[];
  /** Free-text input (see `ToolInputFormat`); the call's arguments are then `{ input: text }`. */
  inputFormat?: ToolInputFormat;
}

/** The input schema of a free-text tool (`inputFormat`): one string, `input`. */
export const TEXT_INPUT_SCHEMA = {
  type: 'object',
  properties: { input: { type: 'string' } },
  required: ['input'],
  additionalProperties: false,
} as const satisfies JsonSchema;

export interface ToolExecutionContext {
  toolCallId: string;
  /** Aborted when the call is cancelled or times out; pass it on to anything slow. */
  signal: AbortSignal;
  /** Reports progress; transports that support it forward it and reset timeouts. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /**
   * The tools as the caller of this tool may use them, when the host knows who called (the
   * forwarder does): a call through it runs as that caller (its token, policy, rate limits, audit)
   * under this call's trace. Code mode's `execute_code` on a gateway runs its script against it.
   */
  tools?: ToolSource;
  /**
   * The W3C `traceparent` of the span this call runs in, when the host traces (the agent does):
   * pass it on (an HTTP header, MCP `_meta.traceparent`) so the services the tool calls join the trace.
   */
  traceparent?: string;
}

/** Returned by `execute` to answer with rich content (images, several parts) instead of a value. */
export interface ToolContentOutput {
  readonly toolContent: true;
  parts: ToolResultPart[];
  isError?: boolean;
  structuredContent?: unknown;
}

export function toolContent(
  parts: ToolResultPart[],
  options: { isError?: boolean; structuredContent?: unknown } = {},
): ToolContentOutput {
  return { toolContent: true, parts, ...options };
}

export function isToolContentOutput(value: unknown): value is ToolContentOutput {
  return isPlainObject(value) && value.toolContent === true && Array.isArray(value.parts);
}

export interface Tool<Args = Record<string, unknown>, Output = unknown> extends ToolSpec {
  execute?: (
    args: Args,
    context: ToolExecutionContext,
  ) => Promise<Output | ToolContentOutput> | Output | ToolContentOutput;
  /** Problems found by a lenient definition (foreign tools); empty when the tool is clean. */
  definitionIssues?: readonly Issue[];
}

/** Any tool, whatever its argument type: what collections of tools hold. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any, any>;

type InferSchema<S, Fallback> = S extends TSchema ? Static<S> : Fallback;

export interface ToolDefinition<
  I extends TSchema | JsonSchema,
  O extends TSchema | JsonSchema | undefined,
> {
  name: string;
  description: string;
  inputSchema: I;
  outputSchema?: O;
  annotations?: ToolAnnotations;
  deferred?: boolean;
  inputExamples?: Array<Record<string, unknown>>;
  allowedCallers?: ToolCaller[];
  inputFormat?: ToolInputFormat;
  execute?: (
    args: InferSchema<I, Record<string, unknown>>,
    context: ToolExecutionContext,
  ) =>
    | Promise<InferSchema<O, unknown> | ToolContentOutput>
    | InferSchema<O, unknown>
    | ToolContentOutput;
}

export interface DefineToolOptions {
  /**
   * `strict` (default) throws `InvalidToolDefinitionError` on any problem. `lenient`, for foreign
   * tools such as MCP servers', keeps the tool and lists the problems in `definitionIssues`.
   */
  mode?: 'strict' | 'lenient';
  /** Name rule for strict mode; the seed's default is snake_case starting with a letter. */
  namePattern?: RegExp;
  maxDepth?: number;
}

export const SNAKE_CASE_TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** What every major provider accepts as a function name. */
export const PROVIDER_SAFE_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const MIN_DESCRIPTION_LENGTH = 10;
export const MAX_DESCRIPTION_LENGTH = 500;
export const MAX_SCHEMA_DEPTH = 10;

/**
 * Defines a tool from a TypeBox schema (arguments and output are inferred statically) or from a
 * plain JSON Schema (draft 2020-12 or draft-07).
 *
 * ```ts
 * const weather = defineTool({
 *   name: 'get_weather',
 *   description: 'Current weather for a city',
 *   inputSchema: Type.Object({ city: Type.String() }),
 *   execute: async ({ city }) => ({ city, celsius: 21 }),
 * });
 * ```
 */
export function defineTool<
  I extends TSchema | JsonSchema,
  O extends TSchema | JsonSchema | undefined = undefined,
>(
  definition: ToolDefinition<I, O>,
  options: DefineToolOptions = {},
): Tool<InferSchema<I, Record<string, unknown>>, InferSchema<O, unknown>> {
  const issues = validateToolDefinition(definition as ToolSpec, options);
  if ((options.mode ?? 'strict') === 'strict' && issues.length > 0) {
    throw new InvalidToolDefinitionError({ toolName: String(definition.name), issues });
  }
  const tool: Tool<InferSchema<I, Record<string, unknown>>, InferSchema<O, unknown>> = {
    name: definition.name,
    description: definition.description,
    inputSchema: definition.inputSchema as JsonSchema,
    ...(definition.outputSchema !== undefined
      ? { outputSchema: definition.outputSchema as JsonSchema }
      : {}),
    ...(definition.annotations !== undefined ? { annotations: definition.annotations } : {}),
    ...toolOptionsOf(definition as ToolSpec),
    ...(definition.execute !== undefined
      ? {
          execute: definition.execute as Tool<
            InferSchema<I, Record<string, unknown>>,
            InferSchema<O, unknown>
          >['execute'],
        }
      : {}),
    definitionIssues: issues,
  };
  return tool;
}

/**
 * The seed's definition rules: name pattern, description length (10-500), required names present
 * in properties, nesting depth <= 10; plus: the input schema is an object schema and compiles.
 * In lenient mode the name is checked against the provider-safe pattern instead of snake_case.
 */
export function validateToolDefinition(spec: ToolSpec, options: DefineToolOptions = {}): Issue[] {
  const issues: Issue[] = [];
  const lenient = (options.mode ?? 'strict') === 'lenient';
  const pattern = options.namePattern ?? (lenient ? PROVIDER_SAFE_TOOL_NAME : SNAKE_CASE_TOOL_NAME);
  if (typeof spec.name !== 'string' || !pattern.test(spec.name)) {
    issues.push({
      pointer: '/name',
      message: `tool name ${JSON.stringify(spec.name)} must match ${pattern}${
        pattern === SNAKE_CASE_TOOL_NAME ? ' (snake_case starting with a lowercase letter)' : ''
      }`,
      expected: String(pattern),
    });
  }
  const description = typeof spec.description === 'string' ? spec.description : '';
  if (description.length < MIN_DESCRIPTION_LENGTH || description.length > MAX_DESCRIPTION_LENGTH) {
    issues.push({
      pointer: '/description',
      message: `description is ${description.length} characters; it should be ${MIN_DESCRIPTION_LENGTH}-${MAX_DESCRIPTION_LENGTH} for good model performance`,
      expected: `${MIN_DESCRIPTION_LENGTH}-${MAX_DESCRIPTION_LENGTH} characters`,
    });
  }
  const schema = spec.inputSchema;
  if (!isPlainObject(schema)) {
    issues.push({
      pointer: '/inputSchema',
      message: 'input schema must be a JSON Schema object',
      expected: 'object',
    });
    return issues;
  }
  if (schema.type !== 'object') {
    issues.push({
      pointer: '/inputSchema/type',
      message: `input schema must have type "object" (got ${JSON.stringify(schema.type)})`,
      expected: '"object"',
    });
  }
  checkSchemaTree(schema, '/inputSchema', 0, options.maxDepth ?? MAX_SCHEMA_DEPTH, issues);
  try {
    getSchemaValidator(schema);
  } catch (error) {
    if (!(error instanceof SchemaCompileError)) throw error;
    issues.push({ pointer: '/inputSchema', message: error.message });
  }
  if (spec.outputSchema !== undefined) {
    if (!isPlainObject(spec.outputSchema)) {
      issues.push({
        pointer: '/outputSchema',
        message: 'output schema must be a JSON Schema object',
        expected: 'object',
      });
    } else {
      try {
        getSchemaValidator(spec.outputSchema);
      } catch (error) {
        if (!(error instanceof SchemaCompileError)) throw error;
        issues.push({ pointer: '/outputSchema', message: error.message });
      }
    }
  }
  checkToolOptions(spec, issues);
  return issues;
}

const CALLERS: readonly string[] = ['direct', 'programmatic'];

function checkToolOptions(spec: ToolSpec, issues: Issue[]): void {
  if (spec.deferred !== undefined && typeof spec.deferred !== 'boolean')
    issues.push({
      pointer: '/deferred',
      message: 'deferred must be true or false',
      expected: 'boolean',
    });
  if (spec.inputExamples !== undefined) {
    if (!Array.isArray(spec.inputExamples)) {
      issues.push({
        pointer: '/inputExamples',
        message: 'inputExamples must be an array of example inputs',
        expected: 'array',
      });
    } else if (isPlainObject(spec.inputSchema)) {
      let validator: ReturnType<typeof getSchemaValidator> | undefined;
      try {
        validator = getSchemaValidator(spec.inputSchema);
      } catch {
        validator = undefined; // reported above
      }
      spec.inputExamples.forEach((example, index) => {
        const result = validator?.validate(example);
        if (!isPlainObject(example) || (result && !result.success)) {
          issues.push({
            pointer: joinPointer('/inputExamples', index),
            message: `example ${index} does not match the input schema${
              result && !result.success ? `: ${formatIssues(result.issues)}` : ''
            }`,
          });
        }
      });
    }
  }
  if (spec.allowedCallers !== undefined) {
    if (
      !Array.isArray(spec.allowedCallers) ||
      spec.allowedCallers.length === 0 ||
      spec.allowedCallers.some((caller) => !CALLERS.includes(caller))
    ) {
      issues.push({
        pointer: '/allowedCallers',
        message: `allowedCallers must be a non-empty array of "direct" and "programmatic" (got ${JSON.stringify(spec.allowedCallers)})`,
        expected: '["direct"] | ["programmatic"] | ["direct", "programmatic"]',
      });
    }
  }
  const format = spec.inputFormat;
  if (format !== undefined) {
    const valid =
      isPlainObject(format) &&
      (format.type === 'text' ||
        (format.type === 'grammar' &&
          (format.syntax === 'lark' || format.syntax === 'regex') &&
          typeof format.definition === 'string' &&
          format.definition !== ''));
    if (!valid) {
      issues.push({
        pointer: '/inputFormat',
        message: `inputFormat must be { type: "text" } or { type: "grammar", syntax: "lark" | "regex", definition } (got ${JSON.stringify(format)})`,
      });
    } else if (JSON.stringify(spec.inputSchema) !== JSON.stringify(TEXT_INPUT_SCHEMA)) {
      issues.push({
        pointer: '/inputSchema',
        message:
          'a tool with inputFormat takes one string, `input`: use TEXT_INPUT_SCHEMA as its inputSchema',
        expected: JSON.stringify(TEXT_INPUT_SCHEMA),
      });
    }
  }
}

/** The optional tool fields a spec carries (deferred, examples, callers, input format). */
function toolOptionsOf(tool: ToolSpec): Partial<ToolSpec> {
  return {
    ...(tool.deferred !== undefined ? { deferred: tool.deferred } : {}),
    ...(tool.inputExamples !== undefined ? { inputExamples: tool.inputExamples } : {}),
    ...(tool.allowedCallers !== undefined ? { allowedCallers: tool.allowedCallers } : {}),
    ...(tool.inputFormat !== undefined ? { inputFormat: tool.inputFormat } : {}),
  };
}

function checkSchemaTree(
  schema: JsonSchema,
  pointer: string,
  depth: number,
  maxDepth: number,
  issues: Issue[],
): void {
  if (depth > maxDepth) {
    issues.push({
      pointer,
      message: `schema nesting exceeds the maximum depth of ${maxDepth}`,
      expected: `depth <= ${maxDepth}`,
    });
    return;
  }
  if (Array.isArray(schema.required)) {
    const properties = isPlainObject(schema.properties) ? schema.properties : {};
    schema.required.forEach((name, index) => {
      if (!Object.prototype.hasOwnProperty.call(properties, name)) {
        issues.push({
          pointer: joinPointer(pointer, 'required', index),
          message: `required property "${name}" is not defined in properties`,
          expected: 'a name listed in properties',
        });
      }
    });
  }
  if (isPlainObject(schema.properties)) {
    for (const [name, child] of Object.entries(schema.properties)) {
      if (isPlainObject(child))
        checkSchemaTree(
          child,
          joinPointer(pointer, 'properties', name),
          depth + 1,
          maxDepth,
          issues,
        );
    }
  }
  const items = schema.items;
  if (Array.isArray(items)) {
    items.forEach(
      (child, i) =>
        isPlainObject(child) &&
        checkSchemaTree(child, joinPointer(pointer, 'items', i), depth + 1, maxDepth, issues),
    );
  } else if (isPlainObject(items)) {
    checkSchemaTree(items, joinPointer(pointer, 'items'), depth + 1, maxDepth, issues);
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) {
      branches.forEach(
        (child, i) =>
          isPlainObject(child) &&
          checkSchemaTree(child, joinPointer(pointer, keyword, i), depth + 1, maxDepth, issues),
      );
    }
  }
  for (const keyword of ['$defs', 'definitions'] as const) {
    const defs = schema[keyword];
    if (isPlainObject(defs)) {
      for (const [name, child] of Object.entries(defs)) {
        if (isPlainObject(child))
          checkSchemaTree(
            child as JsonSchema,
            joinPointer(pointer, keyword, name),
            depth + 1,
            maxDepth,
            issues,
          );
      }
    }
  }
}

/** The provider-neutral part of a tool: what goes into a request. */
export function toToolSpec(tool: ToolSpec): ToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
    ...toolOptionsOf(tool),
  };
}
