import { ToolwireError, type ToolErrorCategory } from '@toolwire/schema';

export { ConfigError } from '@toolwire/config';

/**
 * A tool's server cannot be reached right now (down, still connecting, restarting). The tool stays
 * listed (its last known definition) so the model sees the same catalogue; calls fail with this.
 * `category` makes `toolFailureFromError` report it as a network error.
 */
export class ServerUnavailableError extends ToolwireError {
  readonly server: string;
  readonly toolName: string | undefined;
  readonly reason: string | undefined;
  readonly category: ToolErrorCategory = 'networkError';
  readonly details: Readonly<Record<string, unknown>>;
  constructor(options: { server: string; toolName?: string; reason?: string; cause?: unknown }) {
    super('server_unavailable', {
      message: `MCP server "${options.server}" is unavailable${options.toolName ? ` (tool "${options.toolName}" cannot be called now)` : ''}${
        options.reason ? `: ${options.reason}` : ''
      }`,
      cause: options.cause,
    });
    this.name = 'ServerUnavailableError';
    this.server = options.server;
    this.toolName = options.toolName;
    this.reason = options.reason;
    this.details = {
      server: options.server,
      ...(options.reason ? { reason: options.reason } : {}),
    };
  }
}

/** The server answered a call with a JSON-RPC error (not a tool-level `isError` result). */
export class ToolCallProtocolError extends ToolwireError {
  readonly server: string;
  readonly toolName: string;
  readonly rpcCode: number | undefined;
  readonly category: ToolErrorCategory;
  constructor(options: {
    server: string;
    toolName: string;
    message: string;
    rpcCode?: number;
    category?: ToolErrorCategory;
    cause?: unknown;
  }) {
    super('tool_call_failed', { message: options.message, cause: options.cause });
    this.name = 'ToolCallProtocolError';
    this.server = options.server;
    this.toolName = options.toolName;
    this.rpcCode = options.rpcCode;
    this.category = options.category ?? 'unknown';
  }
}
