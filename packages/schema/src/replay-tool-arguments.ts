import { parseToolArguments } from './parse-tool-arguments.js';
import { toolCallArgumentsObject } from './tool-call.js';

/**
 * A past call's arguments as the object a provider that wants objects (Anthropic `tool_use.input`,
 * Ollama `tool_calls[].function.arguments`) will accept when the transcript is sent back. JSON
 * text from another provider is parsed, and repaired when it is slightly broken; text that does
 * not parse even then becomes `{}`: the call's result already told the model its arguments were
 * invalid, and nothing is executed from this value.
 */
export function replayToolArguments(toolName: string, raw: unknown): Record<string, unknown> {
  const direct = toolCallArgumentsObject({ id: '', name: toolName, arguments: raw });
  if (direct) return direct;
  const repaired = parseToolArguments({ type: 'object' }, raw, { toolName });
  return repaired.success ? repaired.value : {};
}
