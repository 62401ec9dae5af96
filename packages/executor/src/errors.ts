import { ToolwireError } from '@toolwire/schema';
import type { ExecutionErrorInfo, ExecutionErrorKind } from './types.js';

/**
 * A run that failed, as an Error: `kind` says how (syntax, runtime, timeout, memory, …) and the
 * message says what the script's author can do about it. `RunResult.error` carries the same
 * facts as plain JSON; `ExecutionError.fromInfo` turns one into the other.
 */
export class ExecutionError extends ToolwireError {
  readonly kind: ExecutionErrorKind;
  readonly info: ExecutionErrorInfo;
  constructor(options: { info: ExecutionErrorInfo; cause?: unknown }) {
    super(`execution_${options.info.kind.replaceAll('-', '_')}`, {
      message: options.info.message,
      cause: options.cause,
    });
    this.name = 'ExecutionError';
    this.kind = options.info.kind;
    this.info = options.info;
  }

  static fromInfo(info: ExecutionErrorInfo): ExecutionError {
    return new ExecutionError({ info });
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), ...this.info };
  }
}

/** Options passed to `Executor.run` (or a factory) that cannot be used; `path` names the field. */
export class InvalidRunOptionsError extends ToolwireError {
  readonly path: string;
  constructor(options: { path: string; message: string; cause?: unknown }) {
    super('invalid_run_options', {
      message: `Invalid ${options.path}: ${options.message}`,
      cause: options.cause,
    });
    this.name = 'InvalidRunOptionsError';
    this.path = options.path;
  }
}

/** The executor was closed; it runs nothing more. */
export class ExecutorClosedError extends ToolwireError {
  constructor(options: { executor: string }) {
    super('executor_closed', { message: `The ${options.executor} executor is closed` });
    this.name = 'ExecutorClosedError';
  }
}
