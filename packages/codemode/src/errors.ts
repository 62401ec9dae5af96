import { ToolwireError } from '@toolwire/schema';

/** `run` was called on a code mode after `close()`. */
export class CodeModeClosedError extends ToolwireError {
  constructor() {
    super('code_mode_closed', {
      message: 'This code mode is closed; create a new one to run code',
    });
    this.name = 'CodeModeClosedError';
  }
}

/** Options of code mode that cannot be used; `path` names the field. */
export class InvalidCodeModeOptionsError extends ToolwireError {
  readonly path: string;
  constructor(options: { path: string; message: string }) {
    super('invalid_code_mode_options', { message: `Invalid ${options.path}: ${options.message}` });
    this.name = 'InvalidCodeModeOptionsError';
    this.path = options.path;
  }
}

/**
 * A call the code made to `describe()` or `search()` that cannot be answered (a name no tool has,
 * arguments of the wrong shape): the script gets a ToolError with this category.
 */
export class CodeModeCallError extends ToolwireError {
  readonly category: 'invalidArguments' | 'resourceNotFound';
  constructor(options: { message: string; category: 'invalidArguments' | 'resourceNotFound' }) {
    super(
      options.category === 'resourceNotFound' ? 'code_mode_unknown_tool' : 'code_mode_invalid_call',
      { message: options.message },
    );
    this.name = 'CodeModeCallError';
    this.category = options.category;
  }
}
