import { ToolwireError } from './toolwire-error.js';
import type { ToolErrorCategory } from './tool-error-category.js';

/** One problem found in a schema, a value or a transcript, located by a JSON pointer. */
export interface Issue {
  /** JSON pointer into the checked document ('' is the root). */
  pointer: string;
  message: string;
  /** What was expected there, when that can be said briefly (a type, an enum, a pattern). */
  expected?: string;
}

export function formatIssues(issues: readonly Issue[]): string {
  return issues.map((issue) => `${issue.pointer || '/'}: ${issue.message}`).join('; ');
}

export class InvalidToolDefinitionError extends ToolwireError {
  readonly toolName: string;
  readonly issues: readonly Issue[];
  constructor(options: { toolName: string; issues: readonly Issue[]; cause?: unknown }) {
    super('invalid_tool_definition', {
      message: `Invalid tool "${options.toolName}": ${formatIssues(options.issues)}`,
      cause: options.cause,
    });
    this.name = 'InvalidToolDefinitionError';
    this.toolName = options.toolName;
    this.issues = options.issues;
  }
}

/**
 * Arguments a model produced that cannot be used. `kind` tells the three cases apart:
 * the JSON ended early (`truncated`, usually an output-token limit), is not JSON even after repair
 * (`malformed`), or parsed but does not match the tool's input schema (`invalid`).
 */
export type ToolArgumentsProblem = 'truncated' | 'malformed' | 'invalid';

export class InvalidToolArgumentsError extends ToolwireError {
  readonly toolName: string;
  readonly problem: ToolArgumentsProblem;
  readonly issues: readonly Issue[];
  readonly rawArguments: string | undefined;
  constructor(options: {
    toolName: string;
    problem: ToolArgumentsProblem;
    issues: readonly Issue[];
    rawArguments?: string;
    cause?: unknown;
  }) {
    const lead = {
      truncated: 'the arguments JSON is truncated (it ends before the value is complete)',
      malformed: 'the arguments are not valid JSON',
      invalid: 'the arguments do not match the input schema',
    }[options.problem];
    super(`tool_arguments_${options.problem}`, {
      message: `Invalid arguments for tool "${options.toolName}": ${lead}${
        options.issues.length > 0 ? `: ${formatIssues(options.issues)}` : ''
      }`,
      cause: options.cause,
    });
    this.name = 'InvalidToolArgumentsError';
    this.toolName = options.toolName;
    this.problem = options.problem;
    this.issues = options.issues;
    this.rawArguments = options.rawArguments;
  }
}

/**
 * A tool failed. The category is what the model is told; `details` adds facts it can act on.
 * Throw this from a tool's `execute` to choose the category yourself.
 */
export class ToolExecutionError extends ToolwireError {
  readonly category: ToolErrorCategory;
  readonly details: Readonly<Record<string, unknown>> | undefined;
  constructor(options: {
    category: ToolErrorCategory;
    message: string;
    details?: Record<string, unknown>;
    cause?: unknown;
  }) {
    super(`tool_${options.category}`, { message: options.message, cause: options.cause });
    this.name = 'ToolExecutionError';
    this.category = options.category;
    this.details = options.details;
  }

  /** The text a model sees (seed 001, `toLLMFormat`). */
  toModelText(): string {
    let text = `Tool execution failed (${this.category}): ${this.message}`;
    if (this.details && Object.keys(this.details).length > 0) {
      text += `\nDetails: ${Object.entries(this.details)
        .map(
          ([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
        )
        .join(', ')}`;
    }
    return text;
  }
}

export class NoSuchToolError extends ToolwireError {
  readonly toolName: string;
  readonly availableTools: readonly string[];
  constructor(options: { toolName: string; availableTools: readonly string[]; cause?: unknown }) {
    const near = nearestNames(options.toolName, options.availableTools);
    super('no_such_tool', {
      message: `No tool named "${options.toolName}"${near.length > 0 ? `; did you mean ${near.map((n) => `"${n}"`).join(', ')}?` : ''}`,
      cause: options.cause,
    });
    this.name = 'NoSuchToolError';
    this.toolName = options.toolName;
    this.availableTools = options.availableTools;
  }
}

/** A request or call was cancelled through its AbortSignal. */
export class CancelledError extends ToolwireError {
  constructor(options: { message?: string; cause?: unknown } = {}) {
    super('cancelled', {
      message: options.message ?? 'The operation was cancelled',
      cause: options.cause,
    });
    this.name = 'CancelledError';
  }
}

export class TimeoutError extends ToolwireError {
  readonly timeoutMs: number;
  constructor(options: { timeoutMs: number; message?: string; cause?: unknown }) {
    super('timeout', {
      message: options.message ?? `Timed out after ${options.timeoutMs} ms`,
      cause: options.cause,
    });
    this.name = 'TimeoutError';
    this.timeoutMs = options.timeoutMs;
  }
}

/**
 * A problem with what the user typed (command-line flags, arguments, files): the binaries
 * (`toolwire`, `toolwire-server`) print its message with their usage and exit 2.
 */
export class UsageError extends ToolwireError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('usage', { message, cause: options.cause });
    this.name = 'UsageError';
  }
}

/** Names from `candidates` closest to `name` (edit distance), best first, at most three. */
export function nearestNames(name: string, candidates: readonly string[], limit = 3): string[] {
  const lower = name.toLowerCase();
  const scored = candidates
    .map((candidate) => {
      const c = candidate.toLowerCase();
      let distance = editDistance(lower, c);
      if (c.includes(lower) || lower.includes(c))
        distance = Math.min(distance, Math.abs(c.length - lower.length) / 2);
      return { candidate, distance };
    })
    .filter(
      ({ candidate, distance }) =>
        distance <= Math.max(2, Math.ceil(Math.max(name.length, candidate.length) * 0.4)),
    )
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate));
  return scored.slice(0, limit).map(({ candidate }) => candidate);
}

function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(
        above + 1,
        previous[j - 1]! + 1,
        diagonal + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      diagonal = above;
    }
  }
  return previous[b.length]!;
}
