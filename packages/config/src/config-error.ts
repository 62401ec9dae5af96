import { ToolwireError } from '@toolwire/schema';

/** The configuration is unusable; `path` names the offending value in dotted form (`mcpServers.fs.args[1]`). */
export class ConfigError extends ToolwireError {
  readonly path: string;
  /** The problem without the path, e.g. "must be string". */
  readonly problem: string;
  constructor(options: { path: string; problem: string; source?: string; cause?: unknown }) {
    const where = options.path === '' ? 'the top level' : options.path;
    super('invalid_config', {
      message: `Invalid config${options.source ? ` ${options.source}` : ''} at ${where}: ${options.problem}`,
      cause: options.cause,
    });
    this.name = 'ConfigError';
    this.path = options.path;
    this.problem = options.problem;
  }
}
