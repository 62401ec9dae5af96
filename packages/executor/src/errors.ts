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

/** Which shared capacity a refusal is about. */
export type SandboxResource = 'runs' | 'type checks';

/**
 * The owner (a gateway token, a tenant) already has as many runs or type checks waiting as its
 * share allows: this one is refused, not queued. A rate-limit error: try again after `retryAfterMs`.
 * Carries the `rateLimited` tool-error category, so a tool that lets it through (`execute_code`)
 * fails with that category and `retryAfterMs` in its details.
 */
export class SandboxBusyError extends ToolwireError {
  override readonly code = 'rate_limited';
  readonly category = 'rateLimited' as const;
  readonly owner: string;
  readonly resource: SandboxResource;
  readonly retryAfterMs: number;
  readonly details: Readonly<Record<string, unknown>>;
  constructor(options: {
    owner: string;
    resource: SandboxResource;
    retryAfterMs: number;
    active: number;
    queued: number;
  }) {
    const who = options.owner === '' ? 'this caller' : `"${options.owner}"`;
    super('rate_limited', {
      message: `Too many ${options.resource} for ${who}: ${options.active} running and ${options.queued} waiting, the most its share allows. Try again in ${options.retryAfterMs} ms.`,
    });
    this.name = 'SandboxBusyError';
    this.owner = options.owner;
    this.resource = options.resource;
    this.retryAfterMs = options.retryAfterMs;
    this.details = { retryAfterMs: options.retryAfterMs, resource: options.resource };
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      owner: this.owner,
      resource: this.resource,
      retryAfterMs: this.retryAfterMs,
    };
  }
}

/** The run was cancelled (or its executor closed) while it waited for its turn. */
export class WaitAbortedError extends ToolwireError {
  constructor(options: { reason: 'cancelled' | 'closed' }) {
    super(options.reason === 'closed' ? 'executor_closed' : 'cancelled', {
      message:
        options.reason === 'closed'
          ? 'closed while waiting for a free runner'
          : 'cancelled while waiting for a free runner',
    });
    this.name = 'WaitAbortedError';
  }
}
