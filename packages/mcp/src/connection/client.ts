import {
  SdkHttpError,
  UnauthorizedError,
  type PriorDiscovery,
  type Transport,
} from '@modelcontextprotocol/client';
import { errorMessage } from '@toolwire/schema';
import type { TransportKind } from '@toolwire/config';
import type { Logger } from '../logger.js';
import { isOAuthFailure } from '../oauth-session.js';
import { RegistryClient } from '../registry-client.js';
import type { ServerRequestHandlers, StdioTransport } from '../registry-types.js';
import type { ServerConnectionOptions } from './connection-options.js';
import { createTransport } from './transport.js';

interface ClientOptions {
  name: string;
  clientInfo: { name: string; version: string };
  handlers?: ServerRequestHandlers;
  capabilities?: Record<string, unknown>;
  connectTimeoutMs: number;
  logger: Logger;
  transportKind: TransportKind;
}

/** What a connection's client tells the connection (each names the client, which may be stale). */
export interface ClientEvents {
  /** The server said a list changed. */
  onListChanged(client: RegistryClient, kind: 'tools' | 'prompts' | 'resources'): void;
  /** A remote server's notification channel broke (not an authorization failure). */
  onChannelLost(client: RegistryClient, why: string): void;
}

/**
 * The SDK client of one connection attempt: the capabilities of the handlers given (elicitation,
 * sampling), the era negotiation of the config's `protocol`, list-change notifications, and
 * transport errors that may mean the server is gone.
 */
function createConnectionClient(
  mode: 'auto' | 'legacy' | 'modern',
  options: ClientOptions,
  events: ClientEvents,
): RegistryClient {
  const handlers = options.handlers;
  const modes = handlers?.elicitationModes ?? ['form'];
  const client = new RegistryClient(options.clientInfo, {
    capabilities: {
      ...options.capabilities,
      ...(handlers?.elicitation
        ? {
            elicitation: {
              ...(modes.includes('form') ? { form: { applyDefaults: true } } : {}),
              ...(modes.includes('url') ? { url: {} } : {}),
            },
          }
        : {}),
      ...(handlers?.sampling ? { sampling: {} } : {}),
      ...(handlers?.roots ? { roots: { listChanged: true } } : {}),
    },
    versionNegotiation:
      mode === 'legacy'
        ? { mode: 'legacy' }
        : mode === 'modern'
          ? { mode: { pin: '2026-07-28' } }
          : { mode: 'auto', probe: { timeoutMs: Math.min(5000, options.connectTimeoutMs) } },
    listChanged: {
      tools: {
        autoRefresh: false,
        debounceMs: 100,
        onChanged: () => events.onListChanged(client, 'tools'),
      },
      // Prompts and resources are not cached here; their changes are only passed on.
      prompts: {
        autoRefresh: false,
        debounceMs: 100,
        onChanged: () => events.onListChanged(client, 'prompts'),
      },
      resources: {
        autoRefresh: false,
        debounceMs: 100,
        onChanged: () => events.onListChanged(client, 'resources'),
      },
    },
  });
  const { elicitation, sampling, roots } = handlers ?? {};
  if (roots) {
    client.setRequestHandler('roots/list', (_request, ctx) =>
      roots({ server: options.name, signal: ctx.mcpReq.signal }),
    );
  }
  if (elicitation) {
    client.setRequestHandler('elicitation/create', (request, ctx) =>
      elicitation(request.params, { server: options.name, signal: ctx.mcpReq.signal }),
    );
  }
  if (sampling) {
    client.setRequestHandler('sampling/createMessage', (request, ctx) =>
      sampling(request.params, { server: options.name, signal: ctx.mcpReq.signal }),
    );
  }
  client.onerror = (error) => {
    options.logger.debug?.(`MCP server "${options.name}" transport error: ${errorMessage(error)}`);
    // Over HTTP, notifications arrive on a stream beside the requests (the 2025-era GET stream);
    // when it breaks, find out whether the server is still there, else list_changed is lost.
    // An authorization failure is not a lost server: the next request re-authorizes.
    const auth =
      UnauthorizedError.isInstance(error) ||
      isOAuthFailure(error) ||
      ((error as unknown) instanceof SdkHttpError &&
        [401, 403].includes((error as unknown as SdkHttpError).data?.status ?? 0));
    if (options.transportKind !== 'stdio' && !auth)
      events.onChannelLost(client, errorMessage(error));
  };
  return client;
}

/** What a connected client negotiated: the revision, the server, and the verdict to cache. */
export function negotiated(client: RegistryClient): {
  protocolVersion: string | undefined;
  serverInfo: { name: string; version: string } | undefined;
  instructions: string | undefined;
  prior: PriorDiscovery;
} {
  const protocolVersion = client.getNegotiatedProtocolVersion();
  const info = client.getServerVersion();
  const discover = (client as unknown as { _discoverResult?: unknown })._discoverResult;
  return {
    protocolVersion,
    serverInfo: info ? { name: info.name, version: info.version } : undefined,
    instructions: client.getInstructions() || undefined,
    prior:
      protocolVersion && protocolVersion >= '2026-07-28' && discover
        ? ({ kind: 'modern', discover } as PriorDiscovery)
        : { kind: 'legacy' },
  };
}

/** A new transport and SDK client for one connection attempt of a server. */
export function openAttempt(
  kind: TransportKind,
  mode: 'auto' | 'legacy' | 'modern',
  context: {
    options: ServerConnectionOptions;
    transportKind: TransportKind;
    redact: (text: string) => string;
    events: ClientEvents;
  },
): { transport: Transport | StdioTransport; client: RegistryClient } {
  const { options } = context;
  const transport = createTransport(kind, {
    name: options.name,
    config: options.config,
    logger: options.logger,
    ...(options.stdioTransport ? { stdioTransport: options.stdioTransport } : {}),
    ...(options.oauth ? { oauth: options.oauth } : {}),
    redact: context.redact,
  });
  const client = createConnectionClient(
    mode,
    {
      name: options.name,
      clientInfo: options.clientInfo,
      ...(options.handlers ? { handlers: options.handlers } : {}),
      ...(options.capabilities ? { capabilities: options.capabilities } : {}),
      connectTimeoutMs: options.connectTimeoutMs,
      logger: options.logger,
      transportKind: context.transportKind,
    },
    context.events,
  );
  return { transport, client };
}
