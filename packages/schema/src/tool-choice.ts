import { ToolwireError } from './toolwire-error.js';

/**
 * How the model may use tools, provider-neutral:
 * - `auto`: the model decides;
 * - `none`: no tool calls (tools stay declared, so earlier tool turns remain valid);
 * - `required`: at least one tool call;
 * - `{ type: 'tool', toolName }`: exactly this tool;
 * - `{ type: 'allowed', toolNames, mode }`: only these tools, the model deciding whether to call one
 *   (`mode: 'auto'`, the default) or having to (`'required'`). The request still declares every
 *   tool, so the tool list, and with it the provider's prompt cache, stays the same from turn to
 *   turn (OpenAI `allowed_tools`; Gemini `allowedFunctionNames`; checked after the fact elsewhere).
 */
export type ToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | { type: 'tool'; toolName: string }
  | { type: 'allowed'; toolNames: readonly string[]; mode?: 'auto' | 'required' };

export class InvalidToolChoiceError extends ToolwireError {
  constructor(message: string) {
    super('invalid_tool_choice', { message });
    this.name = 'InvalidToolChoiceError';
  }
}

/** Checks a tool choice against the tools of a request; throws a clear error when it cannot work. */
export function assertToolChoice(
  choice: ToolChoice | undefined,
  toolNames: readonly string[],
): void {
  if (choice === undefined || choice === 'auto' || choice === 'none') return;
  if (choice === 'required') {
    if (toolNames.length === 0)
      throw new InvalidToolChoiceError('toolChoice "required" needs at least one tool');
    return;
  }
  if (typeof choice === 'object' && choice !== null && choice.type === 'allowed') {
    const names: unknown = choice.toolNames;
    if (
      !Array.isArray(names) ||
      names.length === 0 ||
      names.some((name) => typeof name !== 'string') ||
      (choice.mode !== undefined && choice.mode !== 'auto' && choice.mode !== 'required')
    ) {
      throw new InvalidToolChoiceError(
        `toolChoice { type: "allowed" } needs toolNames, a non-empty array of tool names, and mode "auto" or "required" (got ${JSON.stringify(choice)})`,
      );
    }
    const unknown = (names as string[]).filter((name) => !toolNames.includes(name));
    if (unknown.length > 0) {
      throw new InvalidToolChoiceError(
        `toolChoice allows ${unknown.map((name) => `"${name}"`).join(', ')}, which ${unknown.length === 1 ? 'is' : 'are'} not among the request's tools (${toolNames.join(', ') || 'none'})`,
      );
    }
    return;
  }
  if (typeof choice !== 'object' || choice.type !== 'tool' || typeof choice.toolName !== 'string') {
    throw new InvalidToolChoiceError(
      `toolChoice must be "auto", "none", "required", { type: "tool", toolName } or { type: "allowed", toolNames } (got ${JSON.stringify(choice)})`,
    );
  }
  if (!toolNames.includes(choice.toolName)) {
    throw new InvalidToolChoiceError(
      `toolChoice names "${choice.toolName}", which is not among the request's tools (${toolNames.join(', ') || 'none'})`,
    );
  }
}

/**
 * Whether the calls a model made honour the tool choice. Used after the fact for providers that
 * ignore tool choice (Ollama): the mismatch is reported as a warning rather than passed silently.
 */
export function toolChoiceViolation(
  choice: ToolChoice | undefined,
  calledToolNames: readonly string[],
): string | undefined {
  if (choice === undefined || choice === 'auto') return undefined;
  if (choice === 'none') {
    return calledToolNames.length > 0
      ? `toolChoice was "none" but the model called ${calledToolNames.join(', ')}`
      : undefined;
  }
  if (choice === 'required') {
    return calledToolNames.length === 0
      ? 'toolChoice was "required" but the model called no tool'
      : undefined;
  }
  if (choice.type === 'allowed') {
    const outside = calledToolNames.filter((name) => !choice.toolNames.includes(name));
    if (outside.length > 0)
      return `toolChoice allowed only ${choice.toolNames.join(', ')} but the model called ${outside.join(', ')}`;
    if (choice.mode === 'required' && calledToolNames.length === 0)
      return `toolChoice required one of ${choice.toolNames.join(', ')} but the model called no tool`;
    return undefined;
  }
  const others = calledToolNames.filter((name) => name !== choice.toolName);
  if (calledToolNames.length === 0)
    return `toolChoice required "${choice.toolName}" but the model called no tool`;
  if (others.length > 0)
    return `toolChoice required "${choice.toolName}" but the model also called ${others.join(', ')}`;
  return undefined;
}
