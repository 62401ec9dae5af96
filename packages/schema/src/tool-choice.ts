import { ToolwireError } from './toolwire-error.js';

/**
 * How the model may use tools, provider-neutral:
 * - `auto`: the model decides;
 * - `none`: no tool calls (tools stay declared, so earlier tool turns remain valid);
 * - `required`: at least one tool call;
 * - `{ type: 'tool', toolName }`: exactly this tool.
 */
export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; toolName: string };

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
  if (typeof choice !== 'object' || choice.type !== 'tool' || typeof choice.toolName !== 'string') {
    throw new InvalidToolChoiceError(
      `toolChoice must be "auto", "none", "required" or { type: "tool", toolName } (got ${JSON.stringify(choice)})`,
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
  const others = calledToolNames.filter((name) => name !== choice.toolName);
  if (calledToolNames.length === 0)
    return `toolChoice required "${choice.toolName}" but the model called no tool`;
  if (others.length > 0)
    return `toolChoice required "${choice.toolName}" but the model also called ${others.join(', ')}`;
  return undefined;
}
