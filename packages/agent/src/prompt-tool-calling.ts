import {
  generateToolCallId,
  parseToolArguments,
  toolCallArgumentsText,
  toolResultText,
  ToolwireError,
  type UnsupportedFeatureError,
  type Message,
  type ToolCall,
  type ToolSpec,
} from '@toolwire/schema';

/** The JSON form of calls when the model has no native tool calling (the staged pipeline's form). */
export const FUNCTION_CALL_JSON_FORM =
  '{"tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "...", "arguments": "<the arguments as a JSON string>"}}]}';

/** The functions a model may call, described for a prompt. */
export function functionsListText(specs: readonly ToolSpec[]): string {
  return `Available functions (JSON Schema of their arguments):\n${JSON.stringify(
    specs.map((spec) => ({
      name: spec.name,
      description: spec.description,
      parameters: spec.inputSchema,
    })),
  )}`;
}

/** The system-prompt part that lets a model without native tool calling call tools. */
export function promptToolsInstruction(specs: readonly ToolSpec[]): string {
  return [
    'You can call functions to help answer the user.',
    functionsListText(specs),
    `To call functions, answer with only this JSON and nothing else: ${FUNCTION_CALL_JSON_FORM}`,
    'The results come back in the next message. When you have what you need, or no function helps, answer the user in plain text, without that JSON.',
  ].join('\n\n');
}

/** Whether an error says the model cannot take tools natively (the cue for `toolCalling: 'auto'`). */
export function isToolCallingUnsupported(error: unknown): error is UnsupportedFeatureError {
  return (
    ToolwireError.isInstance(error) &&
    error.code === 'unsupported' &&
    (error as { feature?: unknown }).feature === 'toolCalling'
  );
}

/**
 * A conversation with native tool turns rewritten as text, for a model that has none: each
 * assistant turn's calls become the JSON form it would have written, each tool turn a user
 * message with the results.
 */
export function toPromptMessages(messages: readonly Message[]): Message[] {
  return messages.map((message): Message => {
    if (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0) {
      const json = JSON.stringify({
        tool_calls: message.toolCalls!.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: toolCallArgumentsText(call) },
        })),
      });
      return {
        role: 'assistant',
        content: message.content === '' ? json : `${message.content}\n${json}`,
      };
    }
    if (message.role === 'tool') {
      const lines = message.results.map((result) =>
        JSON.stringify({
          id: result.toolCallId,
          name: result.toolName,
          ...(result.isError ? { error: true } : {}),
          result: toolResultText(result),
        }),
      );
      return { role: 'user', content: `Function results:\n${lines.join('\n')}` };
    }
    return message;
  });
}

export type PromptAnswer =
  | { kind: 'text'; text: string }
  | { kind: 'calls'; calls: ToolCall[] }
  | { kind: 'invalid'; problem: string; repairs: string[] };

/**
 * Reads a prompt-mode answer: the JSON form (fenced or not, repaired) gives calls; anything
 * else is the answer for the user. JSON that mentions `tool_calls` but cannot be used is
 * `invalid`, so the model can be told what was wrong. Arguments may be JSON text (the form) or an
 * object (what models often write); they are validated against the tool's schema later, like
 * native calls.
 */
export function readPromptAnswer(text: string): PromptAnswer {
  const trimmed = text.trim();
  const mentionsCalls = trimmed.includes('{') && /"?tool_calls"?\s*:/.test(trimmed);
  if (!mentionsCalls) return { kind: 'text', text };
  const parsed = parseToolArguments<Record<string, unknown>>({ type: 'object' }, trimmed, {
    toolName: 'tool_calls',
  });
  if (!parsed.success) return { kind: 'invalid', problem: parsed.error.message, repairs: [] };
  const entries = parsed.value.tool_calls;
  if (!Array.isArray(entries))
    return { kind: 'invalid', problem: '"tool_calls" must be an array', repairs: parsed.repairs };
  const calls: ToolCall[] = [];
  for (const [i, entry] of entries.entries()) {
    const record = (entry ?? {}) as Record<string, unknown>;
    const fn = (record.function ?? record) as Record<string, unknown>;
    if (typeof fn.name !== 'string' || fn.name === '')
      return {
        kind: 'invalid',
        problem: `tool_calls[${i}].function.name must be the name of a function`,
        repairs: parsed.repairs,
      };
    const id =
      typeof record.id === 'string' && record.id.trim() !== '' ? record.id : generateToolCallId();
    calls.push({ id, name: fn.name, arguments: fn.arguments ?? {} });
  }
  if (calls.length === 0) return { kind: 'text', text };
  return { kind: 'calls', calls };
}
