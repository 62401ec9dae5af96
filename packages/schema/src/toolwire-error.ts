const marker = Symbol.for('toolwire.error');

export interface ToolwireErrorOptions {
  message: string;
  cause?: unknown;
}

/**
 * Base class of every error Toolwire throws. `isInstance` works across duplicate copies of the
 * package (a symbol from the global registry marks instances), where `instanceof` would not.
 */
export class ToolwireError extends Error {
  private readonly [marker] = true;
  /** A stable, machine-readable code; subclasses narrow it. */
  readonly code: string;

  constructor(code: string, options: ToolwireErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolwireError';
    this.code = code;
  }

  static isInstance(error: unknown): error is ToolwireError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as Record<symbol, unknown>)[marker] === true
    );
  }

  /** A plain-object form for logs and transcripts (Error fields are not enumerable). */
  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message };
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
