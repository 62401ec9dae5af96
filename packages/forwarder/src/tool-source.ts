import type {
  McpCallToolResultLike,
  ToolSource as BaseToolSource,
  ToolSourceCallOptions,
  ToolSourceTool,
} from '@toolwire/schema';

/** One tool as a registry exposes it (the shape of `@toolwire/mcp`'s `RegistryTool`). */
export interface SourceTool extends ToolSourceTool {
  /** The exposed (namespaced) name, e.g. `fs__read_file`; natives keep their plain name. */
  name: string;
  originalName: string;
  /** `'native'` or the upstream server's name. */
  source: string;
  /** The tool's own `_meta` as its upstream listed it (e.g. an MCP App's `ui.resourceUri`). */
  meta?: Record<string, unknown>;
}

export interface SourceServer {
  name: string;
  /** `ok`, `stale`, `down`, `disabled`, `connecting`, `idle` (lazy, not connected yet), or newer. */
  status: 'ok' | 'stale' | 'down' | 'disabled' | 'connecting' | 'idle' | (string & {});
  reason?: string;
  tools: number;
  transport?: string;
  protocolVersion?: string;
}

/** An MCP `CallToolResult`. */
export interface CallToolResult extends McpCallToolResultLike {
  content: NonNullable<McpCallToolResultLike['content']>;
  [key: string]: unknown;
}

export type SourceCallOptions = ToolSourceCallOptions;

/**
 * What the forwarder needs from a tool registry: the `ToolSource` contract of `@toolwire/schema`
 * plus servers, name resolution and change events. `@toolwire/mcp`'s `Registry` satisfies it
 * structurally; tests and embedders can pass any object of this shape.
 */
export interface ToolSource extends BaseToolSource {
  listTools(): SourceTool[];
  servers(): SourceServer[];
  callTool(name: string, args: unknown, options?: SourceCallOptions): Promise<CallToolResult>;
  resolve(name: string): { source: string; originalName: string } | undefined;
  /** The SDK `Client` connected to an upstream, used for resources and prompts when it is not HTTP. */
  getClient?(serverName: string): unknown;
  onToolsChanged(listener: (event: { server: string }) => void): () => void;
  /**
   * Optional: connect an upstream that is down, or `idle` (lazy), now, without waiting for its
   * backoff (the forwarder calls it when its probe finds the upstream answering again, and its
   * gateway tools on first use).
   */
  connect?(serverName: string): Promise<void>;
  /**
   * Optional: told when an upstream's prompts or resources change, so the forwarder can pass
   * `notifications/prompts|resources/list_changed` on (`@toolwire/mcp`'s registry has it).
   */
  onListChanged?(
    listener: (event: { server: string; kind: 'tools' | 'prompts' | 'resources' }) => void,
  ): () => void;
}

/** How an upstream's status counts for readiness (`/readyz`-style checks) and metrics. */
export interface UpstreamHealth {
  /** `healthy`: `ok`, or `idle` (lazy and not connected yet, which is not a fault). */
  state: 'healthy' | 'degraded' | 'down' | 'disabled';
  /** A live connection right now (only `ok`). */
  connected: boolean;
}

export function upstreamHealth(status: SourceServer['status']): UpstreamHealth {
  switch (status) {
    case 'ok':
      return { state: 'healthy', connected: true };
    case 'idle':
      return { state: 'healthy', connected: false };
    case 'down':
      return { state: 'down', connected: false };
    case 'disabled':
      return { state: 'disabled', connected: false };
    default:
      // stale, connecting, and statuses newer than this package.
      return { state: 'degraded', connected: false };
  }
}
