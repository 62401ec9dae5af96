import type { PriorDiscovery, Tool as McpTool } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '@toolwire/config';
import type { Logger } from '../logger.js';
import type { OAuthSession } from '../oauth-session.js';
import type { ServerRequestHandlers, StdioTransportFactory } from '../registry-types.js';
import type { TaskCallSettings } from './task-call.js';

/**
 * `ok`: connected, tools fresh. `stale`: connected, the last tool refresh failed. `down`: not
 * connected (failed, dropped, restarting; see the reason). `disabled`: off in the config.
 * `connecting`: the first connect is in progress. `idle`: lazy mode, not used yet.
 */
export interface ServerConnectionOptions {
  name: string;
  config: McpServerConfig;
  clientInfo: { name: string; version: string };
  logger: Logger;
  connectTimeoutMs: number;
  /** Default per-call timeout (ms). */
  callTimeoutMs: number;
  /** Re-list tools this often (ms); 0 disables. */
  refreshIntervalMs: number;
  /** Restart/reconnect backoff: first delay and cap (ms). */
  backoff: { initialMs: number; maxMs: number };
  /** Do not connect until the first call (or an explicit connect). */
  lazy?: boolean;
  /** Tools known from a previous run (cache file), served while the server is not connected. */
  cachedTools?: McpTool[];
  /** The era verdict from a previous run, for a zero-round-trip connect. */
  prior?: PriorDiscovery;
  /** Server-to-client requests (elicitation, sampling); without them the capabilities are not declared. */
  handlers?: ServerRequestHandlers;
  /** How tools that run as tasks are called. */
  tasks?: TaskCallSettings;
  /** Capabilities declared besides those of `handlers`. */
  capabilities?: Record<string, unknown>;
  /** OAuth for a remote server with `auth` in its config (the SDK transports drive the flow). */
  oauth?: OAuthSession;
  /** Starts a stdio server (injected: process spawning is Node-only). */
  stdioTransport?: StdioTransportFactory;
  /** Called when the tool list (or the status) changed. */
  onChange: (reason: 'tools' | 'status' | 'prompts' | 'resources') => void;
  /** Called after every successful listing, to persist it. */
  onListed: (
    tools: McpTool[],
    prior: PriorDiscovery | undefined,
    protocolVersion: string | undefined,
  ) => void;
}
