import { ToolwireError, errorMessage } from '@toolwire/schema';

/** Exit codes fixed by SPEC: 0 success, 1 the tool or script failed, 2 bad usage/config/input. */
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

/** A problem with what the user typed (flags, arguments, files): exit 2. One class for both binaries. */
export { UsageError } from '@toolwire/schema';

/**
 * The tool, script or model run failed; its own message has already been printed (or is this
 * message). Exit 1.
 */
export class CommandFailedError extends ToolwireError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('command_failed', { message, cause: options.cause });
    this.name = 'CommandFailedError';
  }
}

/**
 * Ends the command with `exitCode` when whatever failed has already said so itself (the gateway
 * prints its own errors): nothing more is printed.
 */
export class SilentExitError extends ToolwireError {
  readonly exitCode: number;
  constructor(exitCode: number) {
    super('silent_exit', { message: `exit ${exitCode}` });
    this.name = 'SilentExitError';
    this.exitCode = exitCode;
  }
}

/** Error codes (ToolwireError.code) that mean the input or the configuration was wrong. */
const USAGE_CODES = new Set([
  'usage',
  'invalid_config',
  'no_such_tool',
  'tool_arguments_truncated',
  'tool_arguments_malformed',
  'tool_arguments_invalid',
  'invalid_tool_definition',
  // A provider that refuses the key or does not know the model: fix the flags or the config.
  'authentication',
  'permission_denied',
  'not_found',
  'provider_not_configured',
  'feature_unavailable',
  // Code mode: the script cannot be run as given (type errors, syntax, too large), bad limits.
  'script_input',
  'invalid_run_options',
]);

export function exitCodeFor(error: unknown): number {
  if (error instanceof SilentExitError) return error.exitCode;
  if (ToolwireError.isInstance(error)) {
    if (USAGE_CODES.has(error.code)) return EXIT_USAGE;
    return EXIT_FAILED;
  }
  return EXIT_FAILED;
}

/** The one line printed for an error: the message without stack, newlines folded. */
export function describeError(error: unknown): string {
  const message = errorMessage(error).trim();
  const lines = message.split('\n').map((line) => line.trim());
  return lines.filter((line) => line !== '').join(' — ') || 'unknown error';
}
