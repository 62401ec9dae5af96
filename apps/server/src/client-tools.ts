import {
  getSchemaValidator,
  PROVIDER_SAFE_TOOL_NAME,
  type AnyTool,
  type JsonSchema,
  type ToolChoice,
} from '@toolwire/schema';
import { isRecord, openAiError } from './openai-error.js';

/** The two request shapes: Chat Completions nests a function tool's fields under `function`. */
export type OpenAiApi = 'chat' | 'responses';

/**
 * What a client tool's `execute` answers inside the gateway's loop. Never seen by anyone: the run
 * stops after the step that calls a client tool, and the call goes back to the client instead.
 */
const LEFT_TO_THE_CLIENT = 'left to the client';

/**
 * The tools the client declared (`tools`), beside the gateway's own: function tools only. Each
 * becomes a tool of the gateway's agent whose calls end the run and are returned to the client as
 * OpenAI tool calls. A name the gateway already uses is refused (the model could not tell them apart).
 */
export function parseClientTools(
  raw: unknown,
  api: OpenAiApi,
  gatewayNames: ReadonlySet<string>,
): AnyTool[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw))
    throw openAiError(400, 'tools: expected an array of tools', 'tools', 'invalid_type');
  const seen = new Set<string>();
  return raw.map((entry: unknown, index) => {
    const path = `tools[${index}]`;
    if (!isRecord(entry))
      throw openAiError(400, `${path}: expected an object`, path, 'invalid_type');
    if (entry.type !== 'function')
      throw openAiError(
        400,
        `${path}.type: "${String(entry.type)}" tools are not offered by this gateway; declare function tools (its own tools run in the gateway)`,
        `${path}.type`,
        'unsupported_parameter',
      );
    const fields = api === 'chat' ? entry.function : entry;
    const at = api === 'chat' ? `${path}.function` : path;
    if (!isRecord(fields)) throw openAiError(400, `${at}: expected an object`, at, 'invalid_type');
    const name = fields.name;
    if (typeof name !== 'string' || !PROVIDER_SAFE_TOOL_NAME.test(name))
      throw openAiError(
        400,
        `${at}.name: expected 1-64 letters, digits, _ or -`,
        `${at}.name`,
        'invalid_value',
      );
    if (seen.has(name))
      throw openAiError(
        400,
        `${at}.name: "${name}" is declared twice`,
        `${at}.name`,
        'invalid_value',
      );
    if (gatewayNames.has(name))
      throw openAiError(
        400,
        `${at}.name: "${name}" is one of the gateway's own tools; give yours another name`,
        `${at}.name`,
        'invalid_value',
      );
    seen.add(name);
    if (fields.description !== undefined && typeof fields.description !== 'string')
      throw openAiError(
        400,
        `${at}.description: expected a string`,
        `${at}.description`,
        'invalid_type',
      );
    const parameters = fields.parameters ?? { type: 'object', properties: {} };
    if (!isRecord(parameters))
      throw openAiError(
        400,
        `${at}.parameters: expected a JSON Schema object`,
        `${at}.parameters`,
        'invalid_type',
      );
    try {
      getSchemaValidator(parameters as JsonSchema);
    } catch (error) {
      throw openAiError(
        400,
        `${at}.parameters: not a JSON Schema the gateway can check (${(error as Error).message})`,
        `${at}.parameters`,
        'invalid_value',
      );
    }
    return {
      name,
      description: (fields.description as string | undefined) ?? '',
      inputSchema: parameters as JsonSchema,
      execute: () => LEFT_TO_THE_CLIENT,
    } satisfies AnyTool;
  });
}

/**
 * `tool_choice` as a tool choice for the model's first request (later steps of the gateway's loop
 * choose freely, or a forced tool would be called forever). Names must be tools of the request.
 */
export function parseToolChoice(
  raw: unknown,
  api: OpenAiApi,
  toolNames: ReadonlySet<string>,
): ToolChoice | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (raw === 'auto' || raw === 'none' || raw === 'required') return raw;
  const bad = (message: string) =>
    openAiError(400, `tool_choice: ${message}`, 'tool_choice', 'invalid_value');
  const known = (name: unknown): string => {
    if (typeof name !== 'string' || !toolNames.has(name))
      throw bad(`no tool named ${JSON.stringify(name)} in this request`);
    return name;
  };
  const functionName = (entry: unknown): string => {
    if (!isRecord(entry) || entry.type !== 'function') throw bad('expected function tools');
    return known(api === 'chat' && isRecord(entry.function) ? entry.function.name : entry.name);
  };
  if (isRecord(raw) && raw.type === 'function')
    return { type: 'tool', toolName: functionName(raw) };
  if (isRecord(raw) && raw.type === 'allowed_tools') {
    const spec = api === 'chat' ? raw.allowed_tools : raw;
    if (!isRecord(spec) || !Array.isArray(spec.tools))
      throw bad('allowed_tools needs a list of tools');
    const mode = spec.mode === 'required' ? 'required' : 'auto';
    return { type: 'allowed', toolNames: spec.tools.map(functionName), mode };
  }
  throw bad('expected "auto", "none", "required", a function, or allowed_tools');
}
