import type {
  CallToolResult,
  Client,
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  ListRootsResult,
  PriorDiscovery,
  Tool as McpTool,
  Transport,
} from '@modelcontextprotocol/client';
import type { AnyTool, JsonSchema, ToolAnnotations, ToolSourceCallOptions } from '@toolwire/schema';
import type { McpServerConfig, ToolwireConfig, TransportKind } from '@toolwire/config';
import type { TaskCallSettings, ToolTask } from './connection/task-call.js';
import type { Logger } from './logger.js';
import type { AuthorizationHandler } from './oauth-handlers.js';
import type { OAuthTokenStore } from './oauth-token-store.js';

// The registry's public types, in a leaf file: the registry, its helpers (gateway tools, search)
// and the Node entry import them without importing each other.

export type ServerStatus = 'ok' | 'stale' | 'down' | 'disabled' | 'connecting' | 'idle';

/** Answers to requests an MCP server sends to the client (2025 era) or embeds as input_required (2026-07-28). */
export interface ServerRequestHandlers {
  /** `elicitation/create`: ask the user. Declares the elicitation capability (form, with defaults applied). */
  elicitation?: (
    params: ElicitRequest['params'],
    context: { server: string; signal: AbortSignal },
  ) => Promise<ElicitResult>;
  /** `sampling/createMessage`: run a model. Declares the sampling capability. */
  sampling?: (
    params: CreateMessageRequest['params'],
    context: { server: string; signal: AbortSignal },
  ) => Promise<CreateMessageResult>;
  /**
   * `roots/list`: the folders (`file://` URIs) the servers may work in. Declares the roots
   * capability with `listChanged`: call `registry.rootsChanged()` when they change.
   */
  roots?: (context: { server: string; signal: AbortSignal }) => Promise<ListRootsResult>;
  /**
   * The elicitation modes `elicitation` answers (default `['form']`); with `'url'` it is also
   * asked to send the user to a URL (`params.mode === 'url'`).
   */
  elicitationModes?: Array<'form' | 'url'>;
}

/** One hit of `Registry.search`. */
export interface ToolSearchHit {
  /** The exposed name (what to call in tools mode). */
  name: string;
  source: string;
  originalName: string;
  description: string;
  status: RegistryTool['status'];
  /** The BM25 score (`ToolSearchIndex`): higher is better, comparable within one search only. */
  score: number;
}

export type ToolStatus = 'ok' | 'stale' | 'unavailable';

/** One tool as the model sees it, with where it comes from. */
export interface RegistryTool {
  /** The exposed name (unique, `^[a-zA-Z0-9_-]{1,64}$` by default). */
  name: string;
  /** The name at the source (the MCP server's own tool name, or the native tool's name). */
  originalName: string;
  /** `native` or the server name. */
  source: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  /** `ok`: callable; `stale`: callable, but the last refresh of its server failed; `unavailable`: its server is down (last known definition). */
  status: ToolStatus;
  /** Whether the tool runs as a task (`required`, `optional`; absent or `forbidden`: never). */
  execution?: { taskSupport?: 'required' | 'optional' | 'forbidden' };
  /** The tool's own `_meta` as its server listed it (e.g. an MCP App's `ui.resourceUri`). */
  meta?: Record<string, unknown>;
}

export interface ServerInfo {
  name: string;
  status: ServerStatus;
  reason?: string;
  /** How many tools of this server are listed. */
  tools: number;
  transport: TransportKind;
  protocolVersion?: string;
  serverInfo?: { name: string; version: string };
  /** The server's `instructions` (initialize result), when it sent some: code mode's server line. */
  instructions?: string;
  /** How many times the server was restarted or reconnected. */
  restarts: number;
  pid?: number;
  /** Tools the server listed that were left out, and why. */
  rejectedTools?: Array<{ name: string; reason: string }>;
}

/**
 * `timeoutMs` is reset whenever the server reports progress; `meta` is sent as the call's `_meta`
 * (e.g. a `traceparent`); with `argumentsValidated` (a gateway's pipeline checked them) the
 * registry does not check the arguments again. A tool that runs as a task is called as one:
 * `timeoutMs` then bounds each request of it, not the task.
 */
export interface CallToolOptions extends ToolSourceCallOptions {
  /**
   * Run a tool whose `execution.taskSupport` is `optional` as a task (default: the registry's
   * `tasks.optional`). A tool that requires it always runs as one.
   */
  task?: boolean;
  /** Told the task's state when it is created and at every poll (a task call only). */
  onTask?: (task: ToolTask) => void;
}

export interface CreateRegistryOptions {
  config: ToolwireConfig | { mcpServers?: Record<string, McpServerConfig> };
  /** Tools that run in this process. Default: the built-ins named by `config.nativeTools` (all three when absent). */
  nativeTools?: AnyTool[];
  /** Starts stdio servers. Without it they stay down and say why (`@toolwire/mcp/node` passes one). */
  stdioTransport?: StdioTransportFactory;
  /** Keeps the last known tools of every server across restarts (`@toolwire/mcp/node`: `cacheFile`). */
  toolCache?: ToolCache;
  /** Per-server connect (spawn + handshake + first listing) timeout; default 30 s. */
  connectTimeoutMs?: number;
  /** Default per-call timeout; default `config.policy.timeoutMs`, else 60 s. */
  callTimeoutMs?: number;
  /** Re-list every server's tools this often; default 5 minutes, 0 = only on list_changed. */
  refreshIntervalMs?: number;
  /** Restart/reconnect backoff; default 500 ms doubling to 30 s. */
  backoff?: { initialMs?: number; maxMs?: number };
  logger?: Logger;
  clientInfo?: { name: string; version: string };
  /** Answers server-to-client requests (elicitation, sampling, roots); each gets the server's name. */
  handlers?: ServerRequestHandlers;
  /**
   * Tools that run as tasks (2025-11-25 core tasks): whether `optional` ones do too, the `ttl`
   * asked for, the poll interval when the server suggests none.
   */
  tasks?: TaskCallSettings;
  /**
   * Client capabilities declared to a server besides those of `handlers` (a gateway declares what
   * it bridges for its own clients, so its listing holds every tool a server may offer).
   */
  clientCapabilities?: (
    server: string,
    config: McpServerConfig,
  ) => Record<string, unknown> | undefined;
  /** OAuth for remote servers with `auth: { type: "oauth" }`: token store and the user step. */
  oauth?: RegistryOAuthOptions;
  /**
   * Read `null` as "absent" for optional arguments whose schema does not accept null (default
   * true): models often send null for optional parameters they do not use.
   */
  nullMeansAbsent?: boolean;
  /**
   * Connect each server on first use instead of in `start()` (seed 004's gateway pattern): its
   * status is `idle` until then and its tools come from the cache file, if any. A function decides
   * per server (the gateway server connects only the servers behind a gateway tool lazily).
   */
  lazy?: boolean | ((serverName: string) => boolean);
}

/** A server's list of tools, prompts or resources changed. */
export interface ListChangedEvent {
  server: string;
  kind: 'tools' | 'prompts' | 'resources';
}

export interface Registry {
  /** Connects every enabled server in parallel. Never rejects because a server failed: see `servers()`. */
  start(): Promise<void>;
  /** Disconnects everything; stdio servers' process groups are killed. */
  close(): Promise<void>;
  listTools(): RegistryTool[];
  servers(): ServerInfo[];
  /**
   * Calls a tool by its exposed name. Arguments (an object or JSON text) are validated against the
   * input schema first; the server never sees bad input. Throws NoSuchToolError,
   * InvalidToolArgumentsError, ServerUnavailableError, TimeoutError or CancelledError; a tool that
   * fails answers with `isError: true`.
   */
  callTool(name: string, args: unknown, options?: CallToolOptions): Promise<CallToolResult>;
  resolve(name: string): { source: string; originalName: string } | undefined;
  /** The SDK client of a connected server (resources, prompts, completions passthrough). */
  getClient(serverName: string): Client | undefined;
  onToolsChanged(listener: (event: { server: string }) => void): () => void;
  /**
   * Told when a server's tools, prompts or resources change (`notifications/<kind>/list_changed`),
   * e.g. so a gateway can pass the notification on to its own clients.
   */
  onListChanged(listener: (event: ListChangedEvent) => void): () => void;
  /** Schema-level tools whose execute routes to callTool. Gateway mode: one tool per server plus `search`. */
  asTools(options?: { mode?: 'tools' | 'gateway' }): AnyTool[];
  /** Ranks every tool by how well its name and description match the query. */
  search(query: string, options?: { limit?: number }): ToolSearchHit[];
  /** Connects one server now (lazy mode, or to retry a server that is down without waiting for the backoff). */
  connect(serverName: string): Promise<void>;
  /** Tools and servers together: the shape of `toolwire tools list --json`. */
  snapshot(): { tools: RegistryTool[]; servers: ServerInfo[] };
  /** Re-lists tools of one server (or all). */
  refresh(serverName?: string): Promise<void>;
  /** Naming decisions that renamed a tool (collisions, shortening), one line each. */
  warnings(): string[];
  /** Tells every connected server that the roots changed (`notifications/roots/list_changed`). */
  rootsChanged(): Promise<void>;
}

/** How a stdio server is started: `@toolwire/mcp/node` passes a process transport. */
export interface StdioTransportOptions {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Every stderr line, as it arrives. */
  onStderr?: (line: string) => void;
}

/** A running stdio server: an MCP transport plus what the registry reports about the process. */
export interface StdioTransport extends Transport {
  readonly pid: number | null;
  /** The last few KiB the server wrote to stderr. */
  readonly stderrText: string;
  /** Exit code or signal of the process, once it has exited. */
  readonly exitStatus: { code: number | null; signal: string | null } | undefined;
}

export type StdioTransportFactory = (options: StdioTransportOptions) => StdioTransport;

/** Where the last known tools of every server are kept across restarts (a file under Node). */
export interface ToolCache {
  get(
    server: string,
    config: McpServerConfig,
  ): { tools: McpTool[]; prior?: PriorDiscovery } | undefined;
  set(
    server: string,
    config: McpServerConfig,
    tools: McpTool[],
    prior: PriorDiscovery | undefined,
    protocolVersion: string | undefined,
  ): void;
}

/** `createRegistry({ oauth })`: how remote servers with `auth: { type: "oauth" }` are authorized. */
export interface RegistryOAuthOptions {
  /** Where tokens and dynamic client registrations are kept. Default: in memory (under Node: a file). */
  store?: OAuthTokenStore;
  /** The user step. Default under Node: the loopback handler; elsewhere it must be given. */
  authorize?: AuthorizationHandler;
  /** Redirect URI for servers whose `auth.redirectUrl` is not set (default `http://127.0.0.1:33418/callback`). */
  redirectUrl?: string;
  /** `client_name` for dynamic client registration (default "Toolwire"). */
  clientName?: string;
}
