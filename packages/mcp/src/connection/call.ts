import {
  ProtocolError,
  UnauthorizedError,
  type SSEClientTransport,
  type StreamableHTTPClientTransport,
  type Transport,
  SdkError,
  SdkErrorCode,
  type CallToolResult,
  type Tool as McpTool,
} from '@modelcontextprotocol/client';
import { CancelledError, TimeoutError, errorMessage } from '@toolwire/schema';
import { ServerUnavailableError, ToolCallProtocolError } from '../errors.js';
import type { CallToolOptions } from '../registry-types.js';
import type { OAuthSession } from '../oauth-session.js';
import type { RegistryClient } from '../registry-client.js';

/** One `tools/call` as the connection sends it. */
export interface ToolCallRequest {
  server: string;
  toolName: string;
  args: Record<string, unknown>;
  options: CallToolOptions;
  timeoutMs: number;
  /** The definition handed to the SDK (header mirroring), without its output schema. */
  definition: McpTool | undefined;
}

/**
 * Sends one `tools/call` and maps what can go wrong to Toolwire errors: a cancelled call, a
 * timeout, a lost connection (`onConnectionLost` marks the server down and says why), a JSON-RPC
 * error answer.
 */
export async function sendToolCall(
  client: RegistryClient,
  request: ToolCallRequest,
  onConnectionLost: (why: string) => string,
): Promise<CallToolResult> {
  const { toolName, args, options, timeoutMs, definition } = request;
  try {
    const result = await client.callToolResult(
      { name: toolName, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) },
      {
        timeout: timeoutMs,
        resetTimeoutOnProgress: true,
        // Header mirroring needs the definition; the output schema is left out because the registry
        // checks structured content itself and answers a mismatch with an error result, not a throw.
        ...(definition ? { toolDefinition: definition } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onProgress
          ? {
              onprogress: (p: { progress: number; total?: number; message?: string }) =>
                options.onProgress?.(p),
            }
          : {}),
      },
    );
    return result as CallToolResult;
  } catch (error) {
    throw callFailure(error, request, onConnectionLost);
  }
}

/**
 * The Toolwire error for a failed request of a call (its `tools/call`, or a task's `tasks/*`): a
 * cancelled call, a timeout, a lost connection (`onConnectionLost` marks the server down and says
 * why), a JSON-RPC error answer; anything else as it is.
 */
export function callFailure(
  error: unknown,
  request: Pick<ToolCallRequest, 'server' | 'toolName' | 'options' | 'timeoutMs'>,
  onConnectionLost: (why: string) => string,
): unknown {
  const { server, toolName, options, timeoutMs } = request;
  if (options.signal?.aborted)
    return new CancelledError({
      message: `Call of "${toolName}" on "${server}" was cancelled`,
      cause: error,
    });
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return new TimeoutError({
      timeoutMs,
      message: `Tool "${toolName}" on MCP server "${server}" did not answer within ${timeoutMs} ms (the server was sent notifications/cancelled)`,
      cause: error,
    });
  }
  if (isConnectionFailure(error)) {
    const reason = onConnectionLost(errorMessage(error));
    return new ServerUnavailableError({ server, toolName, reason, cause: error });
  }
  if (error instanceof ProtocolError) {
    return new ToolCallProtocolError({
      server,
      toolName,
      rpcCode: error.code,
      message: `MCP server "${server}" rejected the call of "${toolName}": ${error.message}`,
      category: error.code === -32602 ? 'invalidArguments' : 'unknown',
      cause: error,
    });
  }
  return error;
}

/**
 * The definitions handed to the SDK with a call (header mirroring), without their output schema:
 * the registry checks structured content itself. Built once per listing, not once per call.
 */
export class CallDefinitions {
  private byName = new Map<string, McpTool>();
  private of: readonly McpTool[] | undefined;

  get(tools: readonly McpTool[], toolName: string): McpTool | undefined {
    if (this.of !== tools) {
      this.byName = new Map(tools.map((tool) => [tool.name, withoutOutputSchema(tool)]));
      this.of = tools;
    }
    return this.byName.get(toolName);
  }
}

function withoutOutputSchema(tool: McpTool): McpTool {
  const { outputSchema: _ignored, ...rest } = tool;
  return rest;
}

/** A failure that means the connection is gone (the server is down until reconnected). */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof SdkError) {
    return [
      SdkErrorCode.ConnectionClosed,
      SdkErrorCode.NotConnected,
      SdkErrorCode.SendFailed,
    ].includes(error.code);
  }
  const text = errorMessage(error);
  return /fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|Not connected|EPIPE/i.test(text);
}

/**
 * OAuth: a 401 that the refresh token could not fix sends the user through authorization again
 * (inside the SDK transport) and the request fails with UnauthorizedError. The refused request
 * never ran, so redeem the new code and send it once more (twice at most: a step-up may follow).
 * `transport` is the connection's current transport (`undefined` once it moved on).
 */
export async function withReauthorization<T>(
  oauth: OAuthSession | undefined,
  transport: () => Transport | undefined,
  send: () => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      const callback =
        UnauthorizedError.isInstance(error) && attempt < 2 ? oauth?.takeCallback() : undefined;
      const current = transport();
      if (!callback || !current) throw error;
      await (current as StreamableHTTPClientTransport | SSEClientTransport).finishAuth(callback);
    }
  }
}
