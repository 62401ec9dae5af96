import {
  assertToolChoice,
  convertSchema,
  convertToolSchemas,
  type ChatRequest,
  type ChatWarning,
  type SchemaChange,
} from '@toolwire/schema';
import {
  FunctionCallingConfigMode,
  type Content,
  type FunctionDeclaration,
  type GenerateContentConfig,
  type Schema,
} from '@google/genai';
import { convertToGoogleContents } from './google-convert-messages.js';

export interface GoogleRequestSettings {
  /** Send `VALIDATED` instead of `AUTO` (calls constrained to the schemas, text still allowed). */
  validatedFunctionCalls: boolean;
  /** `thinkingConfig` as sent (e.g. `{ includeThoughts: true, thinkingBudget: 1024 }`). */
  thinking: GenerateContentConfig['thinkingConfig'] | undefined;
  /** The key of `request.providerOptions` merged into the config. */
  providerName: string;
}

export interface BuiltGoogleRequest {
  contents: Content[];
  config: GenerateContentConfig;
  warnings: ChatWarning[];
}

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

/** Builds the `contents` and `config` of a `generateContent` call (no I/O). */
export function buildGoogleRequest(
  request: ChatRequest,
  settings: GoogleRequestSettings,
): BuiltGoogleRequest {
  if (!Array.isArray(request.messages))
    throw new TypeError('request.messages must be an array of messages');
  const warnings: ChatWarning[] = [];
  const tools = request.tools ?? [];
  assertToolChoice(
    request.toolChoice,
    tools.map((tool) => tool.name),
  );
  const { contents, system } = convertToGoogleContents(request.messages, warnings);
  const config: GenerateContentConfig = {};
  if (system !== undefined) config.systemInstruction = { parts: [{ text: system }] };

  if (tools.length > 0) {
    tools.forEach((tool, i) => {
      if (!NAME_PATTERN.test(tool.name))
        throw new TypeError(
          `request.tools[${i}].name "${tool.name}" must match ${NAME_PATTERN} for Gemini function declarations`,
        );
    });
    const converted = convertToolSchemas(tools, 'gemini');
    warnings.push(...schemaWarnings(converted.changes, 'tool'));
    const declarations: FunctionDeclaration[] = converted.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema as Schema,
    }));
    config.tools = [{ functionDeclarations: declarations }];
    const choice = request.toolChoice ?? 'auto';
    config.toolConfig = {
      functionCallingConfig:
        choice === 'auto'
          ? {
              mode: settings.validatedFunctionCalls
                ? FunctionCallingConfigMode.VALIDATED
                : FunctionCallingConfigMode.AUTO,
            }
          : choice === 'none'
            ? { mode: FunctionCallingConfigMode.NONE }
            : choice === 'required'
              ? { mode: FunctionCallingConfigMode.ANY }
              : { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: [choice.toolName] },
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
      throw new TypeError(
        'request.responseFormat must be { type: "json", schema: <JSON Schema object> }',
      );
    const converted = convertSchema(format.schema, 'gemini', {
      toolName: format.name ?? 'response',
    });
    warnings.push(...schemaWarnings(converted.changes, 'response format'));
    config.responseMimeType = 'application/json';
    config.responseSchema = converted.schema as Schema;
  }
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0)
    config.stopSequences = request.stopSequences;
  if (settings.thinking) config.thinkingConfig = settings.thinking;
  const extra = request.providerOptions?.[settings.providerName];
  if (extra) Object.assign(config, extra);
  return { contents, config, warnings };
}
