import {
  assertToolChoice,
  normalizeToolSchemas,
  plainFunctionTool,
  type ChatWarning,
  type Message,
  type ToolChoice,
  type ToolSpec,
} from '@toolwire/schema';
import type { OllamaToolParam } from './ollama-wire.js';

export interface PreparedOllamaTools {
  tools?: OllamaToolParam[];
  warnings: ChatWarning[];
}

/** Whether any earlier turn called a tool or carries a tool result. */
export function hasToolHistory(messages: readonly Message[]): boolean {
  return messages.some(
    (message) =>
      message.role === 'tool' ||
      (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0),
  );
}

/**
 * Tools in Ollama's OpenAI-like function format (plain `openai` schema dialect). Ollama ignores
 * tool choice, so the adapter narrows what the model can see where that is safe, and the response
 * is always checked after the fact:
 * - `none`: no tools are declared, unless earlier turns used tools (then they stay declared, since
 *   some model templates render earlier tool calls and results only when tools are declared);
 * - a specific tool: only that tool is declared, under the same condition;
 * - an `allowed` set: every tool stays declared, so the tool list (and with it the prompt prefix
 *   the server caches) does not change from turn to turn; the calls are checked after the fact;
 * - `auto` and `required`: every tool is declared (`required` cannot be forced).
 */
export function prepareOllamaTools(options: {
  tools: readonly ToolSpec[] | undefined;
  toolChoice: ToolChoice | undefined;
  messages: readonly Message[];
}): PreparedOllamaTools {
  const specs = options.tools ?? [];
  const choice = options.toolChoice;
  assertToolChoice(
    choice,
    specs.map((tool) => tool.name),
  );
  const history = hasToolHistory(options.messages);
  let declared = specs;
  if (!history && choice === 'none') declared = [];
  else if (!history && typeof choice === 'object' && choice.type === 'tool')
    declared = specs.filter((tool) => tool.name === choice.toolName);

  // Examples go in the description, a free-text tool is one string (Ollama has neither).
  const converted = normalizeToolSchemas(declared.map((tool) => plainFunctionTool(tool)));
  const warnings: ChatWarning[] = converted.changes.map((change) => ({
    type: 'schema-changed',
    toolName: change.toolName,
    pointer: change.pointer,
    message: `${change.toolName}: ${change.message}`,
  }));
  if (converted.tools.length === 0) return { warnings };
  return {
    tools: converted.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    })),
    warnings,
  };
}
