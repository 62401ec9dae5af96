import { CancelledError, ToolwireError, errorMessage } from '@toolwire/schema';
import type { ErrorRecord } from './agent-transcript.js';

/** `createAgent` or `run` got options or input it cannot use; the message names the field. */
export class InvalidAgentOptionsError extends ToolwireError {
  /** The offending field, e.g. `maxSteps` or `input[2].role`. */
  readonly field: string;
  constructor(options: { field: string; message: string; cause?: unknown }) {
    super('invalid_agent_options', { message: options.message, cause: options.cause });
    this.name = 'InvalidAgentOptionsError';
    this.field = options.field;
  }
}

/** A staged-pipeline stage answered with JSON that does not match its schema, even after repair. */
export class StageOutputError extends ToolwireError {
  readonly stage: string;
  constructor(options: { stage: string; message: string; cause?: unknown }) {
    super('stage_output_invalid', { message: options.message, cause: options.cause });
    this.name = 'StageOutputError';
    this.stage = options.stage;
  }
}

/** The error a cancelled run throws: always a `CancelledError`, whatever the adapter threw. */
export function runCancelled(signal: AbortSignal): CancelledError {
  return new CancelledError({ message: 'The agent run was cancelled', cause: signal.reason });
}

export function errorRecord(error: unknown): ErrorRecord {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return {
      name: error.name,
      code: typeof code === 'string' ? code : null,
      message: error.message,
    };
  }
  return { name: 'Error', code: null, message: errorMessage(error) };
}
