import {
  UsageError,
  plainFunctionTool,
  type ChatRequest,
  type ChatWarning,
  type SchemaChange,
} from '@toolwire/schema';
import {
  FunctionCallingConfigMode,
  type FunctionCallingConfig,
  type FunctionDeclaration,
  type GenerateContentConfig,
  type Schema,
} from '@google/genai';
import { convertToGoogleSchema } from './google-schema-dialect.js';

/** The part of a `generateContent` config that carries tools, tool choice and structured output. */
export type PreparedGoogleTools = Pick<
  GenerateContentConfig,
  'tools' | 'toolConfig' | 'responseMimeType' | 'responseSchema'
>;

function schemaWarnings(changes: readonly SchemaChange[], what: string): ChatWarning[] {
  return changes.map((change) => ({
    type: 'schema-changed',
    message: `${what}${change.toolName ? ` "${change.toolName}"` : ''}: ${change.message}${change.pointer ? ` at ${change.pointer}` : ''}`,
    ...(change.toolName ? { toolName: change.toolName } : {}),
    pointer: change.pointer,
  }));
}

// Gemini function names: letters, digits, underscores, dots, colons and dashes, at most 64.
const NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

function functionCallingConfig(
  choice: NonNullable<ChatRequest['toolChoice']>,
  validatedFunctionCalls: boolean,
): FunctionCallingConfig {
  if (choice === 'auto')
    return {
      mode: validatedFunctionCalls
        ? FunctionCallingConfigMode.VALIDATED
        : FunctionCallingConfigMode.AUTO,
    };
  if (choice === 'none') return { mode: FunctionCallingConfigMode.NONE };
  if (choice === 'required') return { mode: FunctionCallingConfigMode.ANY };
  if (choice.type === 'allowed')
    // `VALIDATED` keeps text possible and limits calls to the names; `ANY` makes one required.
    return {
      mode:
        choice.mode === 'required'
          ? FunctionCallingConfigMode.ANY
          : FunctionCallingConfigMode.VALIDATED,
      allowedFunctionNames: [...choice.toolNames],
    };
  return { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: [choice.toolName] };
}

/**
 * Maps provider-neutral tools, tool choice and response format to Gemini's: tools are function
 * declarations (`gemini` schema dialect), the choice is a `functionCallingConfig` mode (`auto` is
 * `VALIDATED` when `validatedFunctionCalls` is on, `required` and a specific tool are `ANY`), and
 * structured output is `responseSchema` with a JSON mime type. An `allowed` set of tools is
 * `allowedFunctionNames` (with `VALIDATED`, or `ANY` when a call is required). Gemini has no switch for
 * `parallelToolCalls: false`, so it is not sent and a warning says so.
 */
export function prepareGoogleTools(
  request: ChatRequest,
  settings: { validatedFunctionCalls: boolean },
  warnings: ChatWarning[],
): PreparedGoogleTools {
  const prepared: PreparedGoogleTools = {};
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    tools.forEach((tool, i) => {
      if (!NAME_PATTERN.test(tool.name))
        throw new UsageError({
          message: `request.tools[${i}].name "${tool.name}" must match ${NAME_PATTERN} for Gemini function declarations`,
        });
    });
    const declarations: FunctionDeclaration[] = tools.map((spec) => {
      // Examples go in the description, a free-text tool is one string (Gemini has neither).
      const tool = plainFunctionTool(spec);
      const converted = convertToGoogleSchema(tool.inputSchema, { toolName: tool.name });
      warnings.push(...schemaWarnings(converted.changes, 'tool'));
      return {
        name: tool.name,
        description: tool.description,
        parameters: converted.schema as Schema,
      };
    });
    prepared.tools = [{ functionDeclarations: declarations }];
    prepared.toolConfig = {
      functionCallingConfig: functionCallingConfig(
        request.toolChoice ?? 'auto',
        settings.validatedFunctionCalls,
      ),
    };
  }
  if (request.parallelToolCalls === false)
    warnings.push({
      type: 'unsupported-setting',
      message:
        'parallelToolCalls: false is not sent: Gemini has no switch for it (extra calls are reported with a parallel-calls-ignored warning)',
    });

  if (request.responseFormat) {
    const format = request.responseFormat;
    if (format.type !== 'json' || format.schema === null || typeof format.schema !== 'object')
      throw new UsageError({
        message: 'request.responseFormat must be { type: "json", schema: <JSON Schema object> }',
      });
    const converted = convertToGoogleSchema(format.schema, {
      toolName: format.name ?? 'response',
    });
    warnings.push(...schemaWarnings(converted.changes, 'response format'));
    prepared.responseMimeType = 'application/json';
    prepared.responseSchema = converted.schema as Schema;
  }
  return prepared;
}
