import type { CallToolResult, Client, Tool as McpTool } from '@modelcontextprotocol/client';
import {
  CancelledError,
  NoSuchToolError,
  ToolwireError,
  errorMessage,
  isPlainObject,
  toolResultFromMcp,
  matchesGlob,
  parseToolArguments,
  toolContent,
  type AnyTool,
  type JsonSchema,
  type ToolAnnotations,
} from '@toolwire/schema';
import {
  isServerEnabled,
  transportOf,
  type McpServerConfig,
  type ToolwireConfig,
} from '@toolwire/config';
import { ServerUnavailableError } from './errors.js';
import { checkStructuredContent } from './check-structured-content.js';
import { runNativeTool } from './run-native-tool.js';
import { createGatewayTools } from './gateway-tools.js';
import { stderrLogger, type Logger } from './logger.js';
import { createNativeTools } from './native-tools.js';
import { createOAuthSessionFactory } from './oauth.js';
import { assignToolNames, DEFAULT_SEPARATOR, type NamingEntry } from './naming.js';
import type {
  CallToolOptions,
  CreateRegistryOptions,
  ListChangedEvent,
  Registry,
  RegistryTool,
  ServerInfo,
  ToolCache,
  ToolSearchHit,
  ToolStatus,
} from './registry-types.js';
import { ServerConnection } from './connection/server-connection.js';
import { searchTools } from './search-tools.js';

interface Entry {
  tool: RegistryTool;
  connection?: ServerConnection;
  native?: AnyTool;
}

/** Creates the registry. Call `start()` to connect. */
export function createRegistry(options: CreateRegistryOptions): Registry {
  return new McpRegistry(options);
}

class McpRegistry implements Registry {
  private readonly config: ToolwireConfig;
  private readonly logger: Logger;
  private readonly natives: AnyTool[];
  private readonly connections = new Map<string, ServerConnection>();
  private readonly disabled: Array<{ name: string; config: McpServerConfig }> = [];
  private readonly listeners = new Set<(event: { server: string }) => void>();
  private readonly listListeners = new Set<(event: ListChangedEvent) => void>();
  private readonly cache: ToolCache | undefined;
  private byName = new Map<string, Entry>();
  private ordered: Entry[] = [];
  private namingWarnings: string[] = [];
  private started: Promise<void> | undefined;
  private readonly nullMeansAbsent: boolean;

  constructor(options: CreateRegistryOptions) {
    this.config = options.config as ToolwireConfig;
    this.logger = options.logger ?? stderrLogger;
    this.nullMeansAbsent = options.nullMeansAbsent ?? true;
    this.natives =
      options.nativeTools ??
      createNativeTools(this.config.nativeTools ?? ['hash', 'time', 'calculate']);
    this.cache = options.toolCache;
    const clientInfo = options.clientInfo ?? { name: 'toolwire', version: '0.1.0' };
    const servers = Object.entries(this.config.mcpServers ?? {});
    const oauthSession = createOAuthSessionFactory(options.oauth);
    for (const [name, config] of servers) {
      if (!isServerEnabled(config)) {
        this.disabled.push({ name, config });
        continue;
      }
      const cached = this.cache?.get(name, config);
      const connection = new ServerConnection({
        name,
        config,
        clientInfo,
        logger: this.logger,
        connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
        callTimeoutMs: options.callTimeoutMs ?? this.config.policy?.timeoutMs ?? 60_000,
        refreshIntervalMs: options.refreshIntervalMs ?? 300_000,
        backoff: {
          initialMs: options.backoff?.initialMs ?? 500,
          maxMs: options.backoff?.maxMs ?? 30_000,
        },
        ...(cached ? { cachedTools: cached.tools } : {}),
        ...(cached?.prior ? { prior: cached.prior } : {}),
        ...(options.handlers ? { handlers: options.handlers } : {}),
        ...(options.tasks ? { tasks: options.tasks } : {}),
        ...(() => {
          const capabilities = options.clientCapabilities?.(name, config);
          return capabilities ? { capabilities } : {};
        })(),
        ...(options.stdioTransport ? { stdioTransport: options.stdioTransport } : {}),
        ...(config.auth ? { oauth: oauthSession(name, config) } : {}),
        lazy: typeof options.lazy === 'function' ? options.lazy(name) : (options.lazy ?? false),
        onChange: (reason) => this.changed(name, reason),
        onListed: (tools, prior, protocolVersion) =>
          this.cache?.set(name, config, tools, prior, protocolVersion),
      });
      this.connections.set(name, connection);
    }
    this.rebuild();
  }

  start(): Promise<void> {
    // Lazy servers stay idle until a tool of theirs is called (or `connect(name)`).
    this.started ??= Promise.all(
      [...this.connections.values()]
        .filter((connection) => connection.status !== 'idle')
        .map((connection) => connection.connect()),
    ).then(() => undefined);
    return this.started;
  }

  async connect(serverName: string): Promise<void> {
    const connection = this.connections.get(serverName);
    if (!connection) {
      throw new ToolwireError('no_such_server', { message: `No MCP server named "${serverName}"` });
    }
    if (connection.status === 'idle' || connection.status === 'down') await connection.connect();
  }

  snapshot(): { tools: RegistryTool[]; servers: ServerInfo[] } {
    return { tools: this.listTools(), servers: this.servers() };
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.close()));
    this.listeners.clear();
  }

  listTools(): RegistryTool[] {
    return this.ordered.map((entry) => ({ ...entry.tool, status: this.toolStatus(entry) }));
  }

  private toolStatus(entry: Entry): ToolStatus {
    if (!entry.connection) return 'ok';
    const status = entry.connection.status;
    // An idle (lazy) server's tools are last known definitions that a call will connect for.
    return status === 'ok'
      ? 'ok'
      : status === 'stale' || status === 'idle'
        ? 'stale'
        : 'unavailable';
  }

  servers(): ServerInfo[] {
    const counts = new Map<string, number>();
    for (const entry of this.ordered)
      if (entry.connection) counts.set(entry.tool.source, (counts.get(entry.tool.source) ?? 0) + 1);
    const out: ServerInfo[] = [];
    for (const [name, connection] of this.connections) {
      out.push({
        name,
        status: connection.status,
        ...(connection.reason !== undefined ? { reason: connection.reason } : {}),
        tools: counts.get(name) ?? 0,
        transport: connection.connectedVia ?? connection.transportKind,
        ...(connection.protocolVersion ? { protocolVersion: connection.protocolVersion } : {}),
        ...(connection.serverInfo ? { serverInfo: connection.serverInfo } : {}),
        ...(connection.instructions ? { instructions: connection.instructions } : {}),
        restarts: connection.restarts,
        ...(connection.pid !== undefined ? { pid: connection.pid } : {}),
        ...(connection.rejectedTools.length > 0 ? { rejectedTools: connection.rejectedTools } : {}),
      });
    }
    for (const { name, config } of this.disabled) {
      out.push({
        name,
        status: 'disabled',
        reason: 'disabled in the configuration',
        tools: 0,
        transport: transportOf(config),
        restarts: 0,
      });
    }
    return out;
  }

  resolve(name: string): { source: string; originalName: string } | undefined {
    const entry = this.byName.get(name);
    return entry ? { source: entry.tool.source, originalName: entry.tool.originalName } : undefined;
  }

  getClient(serverName: string): Client | undefined {
    return this.connections.get(serverName)?.getClient();
  }

  onToolsChanged(listener: (event: { server: string }) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onListChanged(listener: (event: ListChangedEvent) => void): () => void {
    this.listListeners.add(listener);
    return () => this.listListeners.delete(listener);
  }

  warnings(): string[] {
    return [...this.namingWarnings];
  }

  async rootsChanged(): Promise<void> {
    await Promise.all(
      [...this.connections.values()].map((connection) =>
        connection
          .getClient()
          ?.notification({ method: 'notifications/roots/list_changed' })
          .catch(() => undefined),
      ),
    );
  }

  async refresh(serverName?: string): Promise<void> {
    const targets =
      serverName === undefined
        ? [...this.connections.values()]
        : [this.connections.get(serverName)];
    await Promise.all(
      targets.map((connection) => {
        if (!connection)
          throw new ToolwireError('no_such_server', {
            message: `No MCP server named "${serverName}"`,
          });
        return connection.refresh('manual');
      }),
    );
  }

  search(query: string, options: { limit?: number } = {}): ToolSearchHit[] {
    return searchTools(this.listTools(), query, options);
  }

  async callTool(
    name: string,
    args: unknown,
    options: CallToolOptions = {},
  ): Promise<CallToolResult> {
    const entry = this.byName.get(name);
    if (!entry) {
      const down = this.downServerNaming(name);
      if (down)
        throw new ServerUnavailableError({
          server: down.name,
          toolName: name,
          reason: down.reason ?? 'it is down',
        });
      throw new NoSuchToolError({
        toolName: name,
        availableTools: this.ordered.map((e) => e.tool.name),
      });
    }
    const input = this.checkedArguments(entry, name, args, options);
    if (options.signal?.aborted)
      throw new CancelledError({ message: `Call of "${name}" was cancelled before it started` });
    if (entry.native)
      return runNativeTool(entry.native, name, input, {
        ...options,
        timeoutMs: options.timeoutMs ?? this.config.policy?.timeoutMs ?? 60_000,
      });
    const result = await entry.connection!.call(entry.tool.originalName, input, options);
    return checkStructuredContent(result, entry.tool);
  }

  /** The arguments as the tool gets them; checked here unless the caller already did. */
  private checkedArguments(
    entry: Entry,
    name: string,
    args: unknown,
    options: CallToolOptions,
  ): Record<string, unknown> {
    if (options.argumentsValidated && isPlainObject(args)) return args;
    const parsed = parseToolArguments(entry.tool.inputSchema, args, {
      toolName: name,
      nullMeansAbsent: this.nullMeansAbsent,
    });
    if (!parsed.success) throw parsed.error;
    return parsed.value;
  }

  /**
   * The server that is down (or still connecting) whose prefix `name` carries: its tools are not
   * listed while it is down, and "no tool named …" would send the user looking for a typo.
   */
  private downServerNaming(name: string): { name: string; reason?: string } | undefined {
    const namespace = this.config.namespace ?? {};
    if ((namespace.strategy ?? 'prefix') !== 'prefix') return undefined;
    const separator = namespace.separator ?? DEFAULT_SEPARATOR;
    for (const [serverName, connection] of this.connections) {
      if (connection.status !== 'down' && connection.status !== 'connecting') continue;
      if (!name.startsWith(`${connection.config.prefix ?? serverName}${separator}`)) continue;
      return {
        name: serverName,
        ...(connection.reason !== undefined ? { reason: connection.reason } : {}),
      };
    }
    return undefined;
  }

  asTools(options: { mode?: 'tools' | 'gateway' } = {}): AnyTool[] {
    const mode = options.mode ?? this.config.gateway?.mode ?? 'tools';
    if (mode === 'gateway') return createGatewayTools(this, this.natives);
    return this.listTools().map((tool) => this.toSchemaTool(tool));
  }

  /** A schema-level tool whose execute calls through the registry. */
  toSchemaTool(tool: RegistryTool): AnyTool {
    return {
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
      execute: async (
        args: unknown,
        context: {
          signal: AbortSignal;
          toolCallId: string;
          onProgress?: CallToolOptions['onProgress'];
        },
      ) => {
        const result = await this.callTool(tool.name, args, {
          signal: context.signal,
          ...(context.onProgress ? { onProgress: context.onProgress } : {}),
        });
        const converted = toolResultFromMcp({ id: context.toolCallId, name: tool.name }, result);
        return toolContent(converted.content, {
          isError: converted.isError,
          ...(converted.structuredContent !== undefined
            ? { structuredContent: converted.structuredContent }
            : {}),
        });
      },
    };
  }

  private changed(server: string, reason: 'tools' | 'status' | 'prompts' | 'resources'): void {
    if (reason === 'prompts' || reason === 'resources') {
      this.notifyListChanged({ server, kind: reason });
      return;
    }
    if (reason === 'tools') {
      this.rebuild();
      this.notifyListChanged({ server, kind: 'tools' });
    }
    for (const listener of this.listeners) {
      try {
        listener({ server });
      } catch (error) {
        this.logger.warn(`onToolsChanged listener failed: ${errorMessage(error)}`);
      }
    }
  }

  private notifyListChanged(event: ListChangedEvent): void {
    for (const listener of this.listListeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger.warn(`onListChanged listener failed: ${errorMessage(error)}`);
      }
    }
  }

  /** Recomputes the exposed names and the reverse map from every source's current tools. */
  private rebuild(): void {
    const namespace = this.config.namespace ?? {};
    const priorityOrder = namespace.priority ?? [];
    const naming: NamingEntry[] = [];
    const candidates = new Map<
      string,
      Omit<Entry, 'tool'> & { tool: Omit<RegistryTool, 'name' | 'status'> }
    >();
    for (const tool of this.natives) {
      const key = `native\u0000${tool.name}`;
      naming.push({
        key,
        source: 'native',
        originalName: tool.name,
        prefix: '',
        priority: Number.MAX_SAFE_INTEGER,
        order: -1,
      });
      candidates.set(key, {
        native: tool,
        tool: {
          originalName: tool.name,
          source: 'native',
          description: tool.description,
          inputSchema: tool.inputSchema,
          ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
          ...(tool.annotations ? { annotations: tool.annotations } : {}),
        },
      });
    }
    let order = 0;
    for (const [serverName, connection] of this.connections) {
      const config = connection.config;
      const rank = priorityOrder.indexOf(serverName);
      const priority = config.priority ?? (rank >= 0 ? priorityOrder.length - rank : 0);
      for (const mcpTool of connection.tools) {
        if (!included(mcpTool.name, config)) continue;
        const key = `${serverName}\u0000${mcpTool.name}`;
        naming.push({
          key,
          source: serverName,
          originalName: mcpTool.name,
          prefix: config.prefix ?? serverName,
          priority,
          order,
        });
        candidates.set(key, { connection, tool: fromMcpTool(serverName, mcpTool) });
      }
      order++;
    }
    const { names, warnings } = assignToolNames(naming, {
      ...(namespace.strategy ? { strategy: namespace.strategy } : {}),
      ...(namespace.separator ? { separator: namespace.separator } : {}),
      ...(namespace.maxLength ? { maxLength: namespace.maxLength } : {}),
      ...(namespace.aliases ? { aliases: namespace.aliases } : {}),
    });
    for (const warning of warnings)
      if (!this.namingWarnings.includes(warning)) this.logger.warn(warning);
    this.namingWarnings = warnings;
    const byName = new Map<string, Entry>();
    const ordered: Entry[] = [];
    for (const item of naming) {
      const candidate = candidates.get(item.key)!;
      const entry: Entry = {
        ...candidate,
        tool: { ...candidate.tool, name: names.get(item.key)!, status: 'ok' },
      };
      byName.set(entry.tool.name, entry);
      ordered.push(entry);
    }
    this.byName = byName;
    this.ordered = ordered;
  }
}

function fromMcpTool(server: string, tool: McpTool): Omit<RegistryTool, 'name' | 'status'> {
  const annotations = tool.annotations as ToolAnnotations | undefined;
  return {
    originalName: tool.name,
    source: server,
    description:
      tool.description ??
      tool.title ??
      annotations?.title ??
      `${tool.name} (from MCP server ${server})`,
    inputSchema: tool.inputSchema as JsonSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as JsonSchema } : {}),
    ...(annotations ? { annotations } : {}),
    ...(executionOf(tool) ? { execution: executionOf(tool)! } : {}),
    ...(tool._meta ? { meta: tool._meta } : {}),
  };
}

/** A tool's `execution.taskSupport`, when it declares one the protocol knows. */
function executionOf(tool: McpTool): RegistryTool['execution'] | undefined {
  const taskSupport = (tool as { execution?: { taskSupport?: unknown } }).execution?.taskSupport;
  return taskSupport === 'required' || taskSupport === 'optional' || taskSupport === 'forbidden'
    ? { taskSupport }
    : undefined;
}

function included(name: string, config: McpServerConfig): boolean {
  if (config.include && !matchesGlob(config.include, name)) return false;
  if (config.exclude && matchesGlob(config.exclude, name)) return false;
  return true;
}
