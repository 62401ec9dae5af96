import { join } from 'node:path';
import {
  BRIDGED_CLIENT_CAPABILITIES,
  createAccessTokenVerifier,
  createForwarder,
  isGatewayed,
  isKnownProtocol,
  pathRuleWarnings,
  SUPPORTED_PROTOCOLS,
  type AccessTokenVerifier,
  type AuditEntry,
  type CircuitBreakerOptions,
  type Sessions,
  type ToolPins,
} from '@toolwire/forwarder';
import type { HttpGuard } from '@toolwire/forwarder/http';
import { createRegistry, type Registry, type ToolwireConfig } from '@toolwire/mcp/node';
import { Gauge } from 'prom-client';
import { registryKeyOf } from './config-source.js';
import { toolwireCacheDir } from './default-config.js';
import type { Logger } from './logger.js';
import { mcpCodeMode } from './mcp-code-mode.js';
import type { Runtime } from './runtime.js';
import { userTokenStoreFor } from './user-tokens.js';

export const SERVER_VERSION = '0.1.0';

export interface RuntimeBuilderOptions {
  logger: Logger;
  audit: (entry: AuditEntry) => void;
  guard: HttpGuard;
  sessions: Sessions;
  maxBodyBytes: number;
  /** How long a client has to answer a server-to-client request (default 5 minutes). */
  clientRequestTimeoutMs?: number;
  backoff?: { initialMs?: number; maxMs?: number };
  breaker?: CircuitBreakerOptions;
  /** Open TCP connections to the gateway (a gauge). */
  openConnections: () => number;
  /** The pinned tool definitions of a config (`policy.pinning`), kept across reloads. */
  pinsFor: (config: ToolwireConfig) => Promise<ToolPins | undefined>;
  /** The secret every instance shares (signs per-user OAuth's links and flow). */
  secret: Buffer;
  /** The config file (per-user OAuth keeps users' tokens beside it). */
  configFile: string | undefined;
}

/**
 * Makes the running pieces for one config: the registry (kept from `previous` when its upstreams
 * did not change) and a forwarder over it with the gateway's guard, sessions and audit.
 */
export function runtimeBuilder(
  options: RuntimeBuilderOptions,
): (config: ToolwireConfig, previous?: Runtime) => Promise<Runtime> {
  const { logger } = options;
  const warnedRevisions = new Set<string>();
  /** An upstream that negotiated a revision this gateway does not know gets one warning. */
  function warnUnknownRevisions(registry: Registry): void {
    for (const server of registry.servers()) {
      const revision = server.protocolVersion;
      if (!revision || isKnownProtocol(revision)) continue;
      const key = `${server.name}@${revision}`;
      if (warnedRevisions.has(key)) continue;
      warnedRevisions.add(key);
      logger.warn('upstream negotiated a protocol revision this gateway does not know', {
        server: server.name,
        protocolVersion: revision,
        known: SUPPORTED_PROTOCOLS,
      });
    }
  }

  // The checker of auth.jwt access tokens outlives reloads that leave auth.jwt as it was: its
  // issuer metadata and keys are fetched once, not once per reload.
  let accessTokens: { key: string; verifier: AccessTokenVerifier } | undefined;
  function accessTokenVerifier(config: ToolwireConfig): AccessTokenVerifier | undefined {
    const jwt = config.auth?.jwt;
    if (!jwt) return (accessTokens = undefined);
    const key = JSON.stringify(jwt);
    if (accessTokens?.key !== key) {
      accessTokens = {
        key,
        verifier: createAccessTokenVerifier(jwt, {
          jwks: {
            onFetch: ({ url, reason, kids }) =>
              logger.info("fetched the issuer's signing keys", { url, reason, kids }),
          },
        }),
      };
    }
    return accessTokens.verifier;
  }

  async function startRegistry(config: ToolwireConfig): Promise<Registry> {
    const registry = createRegistry({
      config,
      cacheFile: join(toolwireCacheDir(), 'server-tools-cache.json'),
      clientInfo: { name: 'toolwire-server', version: SERVER_VERSION },
      ...(options.backoff ? { backoff: options.backoff } : {}),
      // Servers behind a gateway tool connect on first use (seed 004).
      lazy: (name) => isGatewayed(config, name),
      // A streamable HTTP upstream serves each client in a session of its own, with that client's
      // capabilities; the registry's listing declares all of them, so it holds every tool such an
      // upstream may offer (each client is then shown what its own capabilities get).
      clientCapabilities: (_name, server) =>
        server.url && (server.transport ?? server.type) !== 'sse'
          ? BRIDGED_CLIENT_CAPABILITIES
          : undefined,
      logger: {
        warn: (message) => logger.warn(message, { component: 'registry' }),
        error: (message) => logger.error(message, { component: 'registry' }),
        debug: (message) => logger.debug(message, { component: 'registry' }),
      },
    });
    registry.onToolsChanged(() => warnUnknownRevisions(registry));
    await registry.start();
    warnUnknownRevisions(registry);
    return registry;
  }

  return async function buildRuntime(config, previous) {
    // A path rule that names its arguments but not all of a filesystem tool's is said at load.
    for (const warning of pathRuleWarnings(
      config.policy?.paths ?? [],
      config.mcpServers,
      config.namespace?.separator,
    ))
      logger.warn(warning, { setting: 'policy.paths' });
    const registryKey = registryKeyOf(config);
    const registry =
      previous && previous.registryKey === registryKey
        ? previous.registry
        : await startRegistry(config);
    const verifier = accessTokenVerifier(config);
    const pins = await options.pinsFor(config);
    const forwarder = createForwarder({
      // The registry is the forwarder's ToolSource. With `redis` in the config the forwarder itself
      // shares rate limits, cached results and circuit-breaker state through Redis.
      source: registry,
      config: config as Record<string, unknown>,
      audit: options.audit,
      httpGuard: options.guard,
      serverInfo: { name: 'toolwire-server', version: SERVER_VERSION },
      sessions: options.sessions,
      maxBodyBytes: options.maxBodyBytes,
      ...(options.clientRequestTimeoutMs !== undefined
        ? { clientRequestTimeoutMs: options.clientRequestTimeoutMs }
        : {}),
      ...(options.breaker ? { breaker: options.breaker } : {}),
      // `execute_code` on /mcp when code mode is on (loaded on first use).
      callerTools: mcpCodeMode(config),
      ...(verifier ? { accessTokens: verifier } : {}),
      ...(pins ? { pins } : {}),
      ...(config.auth?.userTokens
        ? {
            userTokens: {
              secret: options.secret,
              store: await userTokenStoreFor(config, options.configFile),
            },
          }
        : {}),
    });
    if (config.redis) {
      // Share from the first call: wait for the forwarder's Redis stores (they answer locally
      // until then, and again whenever Redis goes away).
      await forwarder.ready().catch((error: Error) =>
        logger.warn('redis unavailable: rate limits, cache and breakers per instance for now', {
          error: error.message,
        }),
      );
    }
    // Gauges of the HTTP server itself, read at scrape time, on the forwarder's registry.
    const registers = [forwarder.pipeline.metrics.registry];
    const { openConnections, sessions } = options;
    new Gauge({
      name: 'toolwire_server_active_connections',
      help: 'Open TCP connections to the gateway.',
      registers,
      collect() {
        this.set(openConnections());
      },
    });
    new Gauge({
      name: 'toolwire_server_sessions',
      help: '2025-era MCP sessions this instance served in the last 30 minutes or still streaming.',
      registers,
      collect() {
        this.set(sessions.localCount);
      },
    });
    return {
      config,
      registry,
      forwarder,
      active: new Set(),
      registryKey,
    };
  };
}
