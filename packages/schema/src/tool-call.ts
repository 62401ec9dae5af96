/** A call of a tool requested by a model, normalised across providers. */
export interface ToolCall {
  /** The provider's id (or one we generated when the provider sent none). */
  id: string;
  name: string;
  /**
   * The arguments as the model sent them: an object (Anthropic, Ollama) or JSON text (OpenAI).
   * Use `parseToolArguments` to get a validated value.
   */
  arguments: unknown;
  /** Provider data that must survive a round trip (e.g. Gemini thought signatures). */
  providerMetadata?: Record<string, unknown>;
}

let counter = 0;

/** A unique id for a tool call when a provider did not give one. */
export function generateToolCallId(prefix = 'call'): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${prefix}_${Date.now().toString(36)}${counter.toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

/** Arguments as JSON text, whatever form the provider used. */
export function toolCallArgumentsText(call: ToolCall): string {
  if (typeof call.arguments === 'string')
    return call.arguments.trim() === '' ? '{}' : call.arguments;
  return JSON.stringify(call.arguments ?? {});
}

/** Arguments as an object when they parse; `{}` for empty text; undefined when they do not parse. */
export function toolCallArgumentsObject(call: ToolCall): Record<string, unknown> | undefined {
  if (typeof call.arguments !== 'string') {
    return call.arguments !== null &&
      typeof call.arguments === 'object' &&
      !Array.isArray(call.arguments)
      ? (call.arguments as Record<string, unknown>)
      : call.arguments == null
        ? {}
        : undefined;
  }
  if (call.arguments.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
