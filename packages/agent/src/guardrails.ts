import {
  errorResult,
  textResult,
  type ToolCall,
  type ToolResult,
  type ToolSpec,
} from '@toolwire/schema';

interface GuardrailBase {
  /** Names the guardrail in the transcript and in what the model is told. */
  name: string;
  /** The tools it checks (default: every tool). */
  tools?: readonly string[];
}

/** What an input guardrail decides: let the call run, or refuse it with a reason the model reads. */
export type ToolInputVerdict = { action: 'allow' } | { action: 'refuse'; message: string };

/** Checks a call before it runs (after validation and approval). */
export interface ToolInputGuardrail extends GuardrailBase {
  check(request: {
    toolCall: ToolCall;
    tool: ToolSpec;
    /** The validated arguments the tool would run with. */
    arguments: Record<string, unknown>;
    signal: AbortSignal;
  }): ToolInputVerdict | Promise<ToolInputVerdict>;
}

/**
 * What an output guardrail decides: keep the result, or replace it (a result, or text) and say why;
 * the model reads the replacement with a note that the guardrail changed it.
 */
export type ToolOutputVerdict =
  { action: 'allow' } | { action: 'replace'; result: ToolResult | string; message: string };

/** Checks a call's result before the model sees it. */
export interface ToolOutputGuardrail extends GuardrailBase {
  check(request: {
    toolCall: ToolCall;
    tool: ToolSpec;
    result: ToolResult;
    signal: AbortSignal;
  }): ToolOutputVerdict | Promise<ToolOutputVerdict>;
}

/** A guardrail's decision, kept on the step (`step.guardrails`). */
export interface GuardrailRecord {
  toolCallId: string;
  toolName: string;
  guardrail: string;
  stage: 'input' | 'output';
  action: 'refuse' | 'replace';
  message: string;
}

export function guardsTool(guardrail: GuardrailBase, toolName: string): boolean {
  return guardrail.tools === undefined || guardrail.tools.includes(toolName);
}

/** The result a refused call gets: a `permissionDenied` error saying which guardrail and why. */
export function refusedResult(call: ToolCall, guardrail: string, message: string): ToolResult {
  return errorResult(call.id, call.name, {
    category: 'permissionDenied',
    message: `Guardrail "${guardrail}" refused this call of "${call.name}": ${message}`,
  });
}

/** A replaced result, with a first text part that tells the model the guardrail changed it. */
export function replacedResult(
  call: ToolCall,
  guardrail: string,
  verdict: Extract<ToolOutputVerdict, { action: 'replace' }>,
): ToolResult {
  const replacement =
    typeof verdict.result === 'string'
      ? textResult(call.id, call.name, verdict.result)
      : { ...verdict.result, toolCallId: call.id, toolName: call.name };
  return {
    ...replacement,
    content: [
      {
        type: 'text',
        text: `[Guardrail "${guardrail}" changed this result: ${verdict.message}]`,
      },
      ...replacement.content,
    ],
  };
}
