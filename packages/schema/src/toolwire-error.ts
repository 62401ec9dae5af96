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

  /**
   * `ToolwireError.isInstance(e)` is true for every Toolwire error; called on a subclass
   * (`CancelledError.isInstance(e)`) it is true only for that class and its subclasses, also when
   * they come from another copy of the package (matched by class name along the prototype chain).
   */
  static isInstance(error: unknown): error is ToolwireError {
    if (typeof error !== 'object' || error === null) return false;
    if ((error as Record<symbol, unknown>)[marker] !== true) return false;
    if (this === ToolwireError || error instanceof this) return true;
    for (
      let proto: unknown = Object.getPrototypeOf(error);
      proto !== null && proto !== Object.prototype;
      proto = Object.getPrototypeOf(proto)
    ) {
      if ((proto as { constructor?: { name?: string } }).constructor?.name === this.name) {
        return true;
      }
    }
    return false;
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
