import {
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { ToolwireError } from '@toolwire/schema';
import type { McpServerConfig, TransportKind } from '@toolwire/config';
import type { Logger } from '../logger.js';
import type { OAuthSession } from '../oauth-session.js';
import type { StdioTransport, StdioTransportFactory } from '../registry-types.js';

export interface TransportOptions {
  name: string;
  config: McpServerConfig;
  logger: Logger;
  /** Starts a stdio server (injected: process spawning is Node-only). */
  stdioTransport?: StdioTransportFactory;
  oauth?: OAuthSession;
  /** Masks the config's secrets in stderr lines. */
  redact: (text: string) => string;
}

/**
 * The transport of one connection attempt: a stdio process, streamable HTTP (reconnecting its GET
 * stream twice at most), or legacy SSE (the config's headers also on its event stream).
 */
export function createTransport(
  kind: TransportKind,
  options: TransportOptions,
): Transport | StdioTransport {
  const { config, oauth } = options;
  if (kind === 'stdio') {
    if (!options.stdioTransport)
      throw new ToolwireError('stdio_unavailable', {
        message:
          'this registry cannot start processes (stdio): create it with createRegistry from @toolwire/mcp/node, or pass stdioTransport',
      });
    return options.stdioTransport({
      command: config.command!,
      ...(config.args ? { args: config.args } : {}),
      ...(config.env ? { env: config.env } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
      onStderr: (line) =>
        options.logger.debug?.(`[${options.name} stderr] ${options.redact(line)}`),
    });
  }
  const url = new URL(config.url!);
  const requestInit: RequestInit = config.headers ? { headers: config.headers } : {};
  if (kind === 'sse') {
    return new SSEClientTransport(url, {
      requestInit,
      ...(oauth ? { authProvider: oauth } : {}),
      ...(config.headers
        ? {
            eventSourceInit: {
              fetch: (input: string | URL | Request, init?: RequestInit) =>
                fetch(input, {
                  ...init,
                  headers: {
                    ...Object.fromEntries(new Headers(init?.headers).entries()),
                    ...config.headers,
                  },
                }),
            },
          }
        : {}),
    });
  }
  return new StreamableHTTPClientTransport(url, {
    requestInit,
    ...(oauth ? { authProvider: oauth } : {}),
    reconnectionOptions: {
      maxReconnectionDelay: 30_000,
      initialReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 2,
    },
  });
}

/** The transports to try in order: a plain `url` speaks streamable HTTP, else legacy SSE. */
export function transportsToTry(config: McpServerConfig, kind: TransportKind): TransportKind[] {
  const declared = config.transport ?? config.type;
  return kind === 'http' && declared === undefined ? ['http', 'sse'] : [kind];
}

/**
 * The HTTP status of an answer that says "no streamable HTTP here" (400, 404, 405): only that is
 * worth trying SSE for. `undefined` for every other failure.
 */
export function noStreamableHttp(kind: TransportKind, error: unknown): number | undefined {
  const status = error instanceof SdkHttpError ? error.data?.status : undefined;
  return kind === 'http' && status !== undefined && [400, 404, 405].includes(status)
    ? status
    : undefined;
}
