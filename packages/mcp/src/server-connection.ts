import {
  type Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type PriorDiscovery,
  type StandardSchemaV1,
  type Tool as McpTool,
  type Transport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import {
  CancelledError,
  TimeoutError,
  errorMessage,
  validateToolDefinition,
  type ToolSpec,
} from '@toolwire/schema';
import { transportOf, type McpServerConfig, type TransportKind } from '@toolwire/config';
import { ServerUnavailableError, ToolCallProtocolError } from './errors.js';
import { RegistryClient } from './registry-client.js';
import type { Logger } from './logger.js';
import { describeOAuthFailure, isOAuthFailure, type OAuthSession } from './oauth-session.js';
import type {
  ServerRequestHandlers,
  ServerStatus,
  StdioTransport,
  StdioTransportFactory,
} from './registry-types.js';
import { unrefTimer } from './unref-timer.js';

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

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  meta?: Record<string, unknown>;
}

/**
 * One upstream MCP server: connects (negotiating 2026-07-28 or falling back to the 2025-11-25
 * initialize handshake), lists tools (all pages), refreshes on `list_changed` and on a timer,
 * routes calls, and supervises the connection: a stdio server that exits is restarted and a remote
 * that drops is reconnected, with exponential backoff. Its last known tools survive outages.
 */
export class ServerConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly transportKind: TransportKind;
  status: ServerStatus;
  reason: string | undefined;
  tools: McpTool[];
  /** Tools dropped from the listing because their definition is unusable, with why. */
  rejectedTools: Array<{ name: string; reason: string }> = [];
  private callDefinitions = new Map<string, McpTool>();
  private callDefinitionsOf: McpTool[] | undefined;
  protocolVersion: string | undefined;
  serverInfo: { name: string; version: string } | undefined;
  /** The `instructions` the server sent at initialization (what it offers, how to use it). */
  instructions: string | undefined;
  restarts = 0;
  /** Which transport actually connected (an `http` server may have fallen back to `sse`). */
  connectedVia: TransportKind | undefined;

  private client: RegistryClient | undefined;
  private transport: Transport | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private prior: PriorDiscovery | undefined;
  private generation = 0;
  private lastFailure: string | undefined;
  /** A liveness check of the current client is running (after a notification channel broke). */
  private checking: Client | undefined;
  private readonly adopted = new WeakSet<Client>();
  /** The most recent stdio process, kept after teardown for its exit status and stderr. */
  private lastProcess: StdioTransport | undefined;
  private readonly options: ServerConnectionOptions;

  constructor(options: ServerConnectionOptions) {
    this.options = options;
    this.name = options.name;
    this.config = options.config;
    this.transportKind = transportOf(options.config);
    this.tools = options.cachedTools ?? [];
    this.prior = options.prior;
    this.status = options.lazy ? 'idle' : 'connecting';
  }

  get pid(): number | undefined {
    return this.transport !== undefined && this.transport === this.lastProcess
      ? (this.lastProcess.pid ?? undefined)
      : undefined;
  }

  get stderrTail(): string | undefined {
    return this.transport !== undefined && this.transport === this.lastProcess
      ? this.redact(this.lastProcess.stderrText)
      : undefined;
  }

  /**
   * `text` (the server's stderr) with the values of the config's `env` entries masked: a failing
   * server may print its API keys, and stderr reaches status reasons and logs.
   */
  redact(text: string): string {
    let out = text;
    for (const value of Object.values(this.config.env ?? {})) {
      // Very short values ("1", "true") are settings, not secrets, and would mask everything.
      if (typeof value === 'string' && value.length >= 4) out = out.split(value).join('[redacted]');
    }
    return out;
  }

  /** The SDK client while connected (for resources/prompts passthrough). */
  getClient(): Client | undefined {
    return this.status === 'ok' || this.status === 'stale' ? this.client : undefined;
  }

  /** Connects (once; concurrent callers share the attempt). Never rejects: failures become status `down`. */
  connect(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.connecting ??= this.connectOnce().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connectOnce(): Promise<void> {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const generation = ++this.generation;
    // A retry after a failure stays `down` with its reason until it succeeds: health must not
    // flip a dead upstream to "connecting" (and lose why) every backoff tick.
    if (this.status !== 'down') this.setStatus('connecting', undefined);
    const timeoutMs = this.config.connectTimeoutMs ?? this.options.connectTimeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(
      () =>
        controller.abort(
          new TimeoutError({ timeoutMs, message: `connect timed out after ${timeoutMs} ms` }),
        ),
      timeoutMs,
    );
    try {
      await this.establish(controller.signal, timeoutMs);
      if (generation !== this.generation || this.closed) return;
      await this.listAndStore(controller.signal, timeoutMs);
      if (generation !== this.generation || this.closed) return;
      await this.listen(this.client!, timeoutMs);
      this.attempt = 0;
      this.lastFailure = undefined;
      this.setStatus('ok', undefined);
      this.scheduleRefresh();
    } catch (error) {
      if (generation !== this.generation || this.closed) return;
      const reason = this.describeFailure(error, controller.signal);
      // Say it once per distinct reason; retries that fail the same way go to debug.
      if (reason !== this.lastFailure)
        this.options.logger.warn(`MCP server "${this.name}" is unavailable: ${reason}`);
      else this.options.logger.debug?.(`MCP server "${this.name}" is still unavailable: ${reason}`);
      this.lastFailure = reason;
      await this.teardown();
      this.setStatus('down', reason);
      this.scheduleRetry();
    } finally {
      clearTimeout(timer);
    }
  }

  private async establish(signal: AbortSignal, timeoutMs: number): Promise<void> {
    const mode = this.config.protocol ?? 'auto';
    const declared = this.config.transport ?? this.config.type;
    const kinds: TransportKind[] =
      this.transportKind === 'http' && declared === undefined
        ? ['http', 'sse']
        : [this.transportKind];
    let lastError: unknown;
    for (const kind of kinds) {
      try {
        await this.connectWith(kind, mode, signal, timeoutMs);
        this.connectedVia = kind;
        return;
      } catch (error) {
        lastError = error;
        await this.teardown();
        // Only an HTTP answer that says "no streamable HTTP here" is worth trying SSE for.
        const status = error instanceof SdkHttpError ? error.data?.status : undefined;
        if (!(kind === 'http' && status !== undefined && [400, 404, 405].includes(status)))
          throw error;
        this.options.logger.info?.(
          `MCP server "${this.name}": streamable HTTP answered ${status}; trying legacy SSE`,
        );
      }
    }
    throw lastError;
  }

  private async connectWith(
    kind: TransportKind,
    mode: 'auto' | 'legacy' | 'modern',
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<void> {
    const useLegacy = kind === 'sse' || mode === 'legacy';
    let prior = useLegacy ? ({ kind: 'legacy' } as const) : this.prior;
    const oauth = this.options.oauth;
    if (oauth) oauth.signal = signal;
    let authorizations = 0;
    for (let round = 0; round < 2; round++) {
      // close() may land while a connect is in flight: never start a process after it.
      if (this.closed)
        throw new ServerUnavailableError({ server: this.name, reason: 'the registry was closed' });
      const transport = this.createTransport(kind);
      const client = this.createClient(useLegacy ? 'legacy' : mode);
      this.transport = transport;
      this.client = client;
      try {
        await client.connect(transport, {
          signal,
          timeout: timeoutMs,
          ...(prior ? { prior } : {}),
        });
        this.protocolVersion = client.getNegotiatedProtocolVersion();
        const info = client.getServerVersion();
        this.serverInfo = info ? { name: info.name, version: info.version } : undefined;
        this.instructions = client.getInstructions() || undefined;
        const discover = (client as unknown as { _discoverResult?: unknown })._discoverResult;
        this.prior =
          this.protocolVersion && this.protocolVersion >= '2026-07-28' && discover
            ? ({ kind: 'modern', discover } as PriorDiscovery)
            : { kind: 'legacy' };
        if (this.closed) {
          await this.teardown();
          throw new ServerUnavailableError({
            server: this.name,
            reason: 'the registry was closed',
          });
        }
        client.onclose = () => this.handleDrop(client, 'the connection closed');
        return;
      } catch (error) {
        // OAuth: the user step brought back a code; redeem it and connect again with the token.
        const callback = UnauthorizedError.isInstance(error) ? oauth?.takeCallback() : undefined;
        if (callback && authorizations < 2 && !signal.aborted) {
          authorizations++;
          try {
            await (transport as StreamableHTTPClientTransport | SSEClientTransport).finishAuth(
              callback,
            );
          } finally {
            await this.teardown();
          }
          round--;
          continue;
        }
        await this.teardown();
        if (signal.aborted) throw signal.reason ?? error;
        // A stdio server that exits on the unknown server/discover probe is a 2025-era server:
        // start it again and speak initialize. A stale cached modern verdict gets the same retry.
        const negotiationFailed =
          error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed;
        if (round === 0 && mode === 'auto' && (negotiationFailed || prior?.kind === 'modern')) {
          prior = { kind: 'legacy' };
          continue;
        }
        throw error;
      }
    }
  }

  private createTransport(kind: TransportKind): Transport {
    const config = this.config;
    if (kind === 'stdio') {
      if (!this.options.stdioTransport)
        throw new Error(
          'this registry cannot start processes (stdio): create it with createRegistry from @toolwire/mcp/node, or pass stdioTransport',
        );
      return (this.lastProcess = this.options.stdioTransport({
        command: config.command!,
        ...(config.args ? { args: config.args } : {}),
        ...(config.env ? { env: config.env } : {}),
        ...(config.cwd ? { cwd: config.cwd } : {}),
        onStderr: (line) =>
          this.options.logger.debug?.(`[${this.name} stderr] ${this.redact(line)}`),
      }));
    }
    const url = new URL(config.url!);
    const requestInit: RequestInit = config.headers ? { headers: config.headers } : {};
    const oauth = this.options.oauth;
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

  private createClient(mode: 'auto' | 'legacy' | 'modern'): RegistryClient {
    const handlers = this.options.handlers;
    const client = new RegistryClient(this.options.clientInfo, {
      capabilities: {
        ...(handlers?.elicitation ? { elicitation: { form: { applyDefaults: true } } } : {}),
        ...(handlers?.sampling ? { sampling: {} } : {}),
      },
      versionNegotiation:
        mode === 'legacy'
          ? { mode: 'legacy' }
          : mode === 'modern'
            ? { mode: { pin: '2026-07-28' } }
            : { mode: 'auto', probe: { timeoutMs: Math.min(5000, this.options.connectTimeoutMs) } },
      listChanged: {
        tools: {
          autoRefresh: false,
          debounceMs: 100,
          onChanged: () => {
            if (this.client === client) void this.refresh('list_changed');
          },
        },
        // Prompts and resources are not cached here; their changes are only passed on.
        prompts: {
          autoRefresh: false,
          debounceMs: 100,
          onChanged: () => {
            if (this.client === client) this.options.onChange('prompts');
          },
        },
        resources: {
          autoRefresh: false,
          debounceMs: 100,
          onChanged: () => {
            if (this.client === client) this.options.onChange('resources');
          },
        },
      },
    });
    const { elicitation, sampling } = handlers ?? {};
    if (elicitation) {
      client.setRequestHandler('elicitation/create', (request, ctx) =>
        elicitation(request.params, { server: this.name, signal: ctx.mcpReq.signal }),
      );
    }
    if (sampling) {
      client.setRequestHandler('sampling/createMessage', (request, ctx) =>
        sampling(request.params, { server: this.name, signal: ctx.mcpReq.signal }),
      );
    }
    client.onerror = (error) => {
      this.options.logger.debug?.(
        `MCP server "${this.name}" transport error: ${errorMessage(error)}`,
      );
      // Over HTTP, notifications arrive on a stream beside the requests (the 2025-era GET stream);
      // when it breaks, find out whether the server is still there, else list_changed is lost.
      // An authorization failure is not a lost server: the next request re-authorizes.
      const auth =
        UnauthorizedError.isInstance(error) ||
        isOAuthFailure(error) ||
        ((error as unknown) instanceof SdkHttpError &&
          [401, 403].includes((error as unknown as SdkHttpError).data?.status ?? 0));
      if (this.transportKind !== 'stdio' && !auth)
        void this.checkAlive(client, errorMessage(error));
    };
    return client;
  }

  /**
   * On 2026-07-28, list changes come on a `subscriptions/listen` stream. The SDK opens one after a
   * server/discover probe, but not when connecting from a cached discovery, and never re-opens one
   * that ended: open it here, and when it ends, check the server and open it again (or reconnect).
   */
  private async listen(client: Client, timeoutMs: number): Promise<void> {
    if ((client.getNegotiatedProtocolVersion() ?? '') < '2026-07-28') return;
    const capabilities = client.getServerCapabilities() ?? {};
    const filter = {
      ...(capabilities.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(capabilities.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(capabilities.resources?.listChanged ? { resourcesListChanged: true } : {}),
    };
    if (Object.keys(filter).length === 0) return;
    // The one the SDK opened counts once; after it ended, open a new one.
    let subscription = this.adopted.has(client) ? undefined : client.autoOpenedSubscription;
    this.adopted.add(client);
    if (!subscription) {
      try {
        subscription = await client.listen(filter, { timeout: timeoutMs });
      } catch (error) {
        this.options.logger.warn(
          `MCP server "${this.name}": subscriptions/listen failed, tool list changes arrive only on refresh: ${errorMessage(error)}`,
        );
        return;
      }
    }
    void subscription.closed.then((cause) => {
      if (cause === 'remote' && this.client === client)
        void this.checkAlive(client, 'the subscriptions/listen stream ended');
    });
  }

  /**
   * After the notification channel broke: lists the tools again (catching a change sent while it
   * was down; `ping` does not exist on 2026-07-28) and re-listens, or reconnects when that fails.
   */
  private async checkAlive(client: Client, why: string): Promise<void> {
    if (this.checking === client || this.client !== client || this.closed) return;
    if (this.status !== 'ok' && this.status !== 'stale') return;
    this.checking = client;
    try {
      await this.listAndStore(undefined, 2000);
      if (this.client === client) await this.listen(client, 5000);
    } catch (error) {
      this.handleDrop(client, `${why}; tools/list failed: ${errorMessage(error)}`);
    } finally {
      if (this.checking === client) this.checking = undefined;
    }
  }

  /** Lists all tools (every page) and stores them; tools with unusable definitions are dropped with a warning. */
  private async listAndStore(signal?: AbortSignal, timeoutMs?: number): Promise<boolean> {
    const client = this.client;
    if (!client) throw new ServerUnavailableError({ server: this.name, reason: 'not connected' });
    const all: McpTool[] = [];
    let cursor: string | undefined;
    const seen = new Set<string>();
    for (let page = 0; page < 1000; page++) {
      // Read the page leniently: one malformed tool must not hide the server's other tools.
      const params = cursor === undefined ? {} : { cursor };
      const result = await this.reauthorized(client, () =>
        client.request({ method: 'tools/list', params }, lenientToolList, {
          ...(signal ? { signal } : {}),
          ...(timeoutMs ? { timeout: timeoutMs } : {}),
        }),
      );
      all.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined || cursor === '') break;
      if (seen.has(cursor))
        throw new Error(`tools/list pagination loops (cursor ${JSON.stringify(cursor)} repeated)`);
      seen.add(cursor);
    }
    const accepted: McpTool[] = [];
    const rejected: Array<{ name: string; reason: string }> = [];
    const names = new Set<string>();
    for (const tool of all) {
      const problem = definitionProblem(tool);
      if (problem) rejected.push({ name: String(tool.name), reason: problem });
      else if (names.has(tool.name))
        rejected.push({ name: tool.name, reason: 'listed twice; the first definition is kept' });
      else {
        names.add(tool.name);
        accepted.push(tool);
      }
    }
    for (const { name, reason } of rejected)
      this.options.logger.warn(`MCP server "${this.name}": tool "${name}" is left out: ${reason}`);
    this.rejectedTools = rejected;
    const changed = !sameDefinitions(this.tools, accepted);
    if (changed) describeChanges(this.name, this.tools, accepted, this.options.logger);
    this.tools = accepted;
    this.options.onListed(accepted, this.prior, this.protocolVersion);
    if (changed) this.options.onChange('tools');
    return changed;
  }

  /** Re-lists tools; on failure keeps the last known ones and marks the server `stale`. */
  async refresh(trigger: 'list_changed' | 'ttl' | 'manual' = 'manual'): Promise<void> {
    if (this.closed) return;
    if (this.status !== 'ok' && this.status !== 'stale') {
      if (trigger === 'manual') await this.connect();
      return;
    }
    try {
      await this.listAndStore(undefined, this.options.connectTimeoutMs);
      if (this.status === 'stale') this.setStatus('ok', undefined);
    } catch (error) {
      if (isConnectionFailure(error)) {
        this.handleDrop(this.client, `refresh failed: ${errorMessage(error)}`);
        return;
      }
      this.options.logger.warn(
        `MCP server "${this.name}": refreshing tools (${trigger}) failed, keeping the last known list: ${errorMessage(error)}`,
      );
      this.setStatus('stale', `tool list refresh failed: ${errorMessage(error)}`);
    } finally {
      this.scheduleRefresh();
    }
  }

  private scheduleRefresh(): void {
    clearTimeout(this.refreshTimer);
    const every =
      this.config.refreshIntervalSeconds !== undefined
        ? this.config.refreshIntervalSeconds * 1000
        : this.options.refreshIntervalMs;
    if (every > 0 && !this.closed) {
      this.refreshTimer = setTimeout(() => void this.refresh('ttl'), every);
      unrefTimer(this.refreshTimer);
    }
  }

  /** Calls a tool by its original name. Throws ServerUnavailableError when the server is not connected. */
  async call(
    toolName: string,
    args: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    if (this.status === 'idle') await this.connect();
    // Wait for an attempt in flight (first connect or a retry), bounded by its connect timeout.
    if ((this.status === 'connecting' || this.status === 'down') && this.connecting)
      await this.connecting;
    const client = this.client;
    if (!client || (this.status !== 'ok' && this.status !== 'stale')) {
      throw new ServerUnavailableError({
        server: this.name,
        toolName,
        ...(this.reason ? { reason: this.reason } : { reason: this.status }),
      });
    }
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs ?? this.options.callTimeoutMs;
    const definition = this.callDefinition(toolName);
    try {
      return await this.reauthorized(client, () =>
        this.callOnce(client, toolName, args, options, timeoutMs, definition),
      );
    } catch (error) {
      if (this.options.oauth && isOAuthFailure(error)) {
        // The token is gone and could not be renewed: the server is down until it is authorized.
        const reason = describeOAuthFailure(error, this.options.oauth);
        this.handleDrop(client, reason);
        throw new ServerUnavailableError({ server: this.name, toolName, reason, cause: error });
      }
      throw error;
    }
  }

  /**
   * The definition handed to the SDK with a call (header mirroring), without its output schema:
   * the registry checks structured content itself. Built once per listing, not once per call.
   */
  private callDefinition(toolName: string): McpTool | undefined {
    if (this.callDefinitionsOf !== this.tools) {
      this.callDefinitions = new Map(
        this.tools.map((tool) => [tool.name, withoutOutputSchema(tool)]),
      );
      this.callDefinitionsOf = this.tools;
    }
    return this.callDefinitions.get(toolName);
  }

  /**
   * OAuth: a 401 that the refresh token could not fix sends the user through authorization again
   * (inside the SDK transport) and the request fails with UnauthorizedError. The refused request
   * never ran, so redeem the new code and send it once more (twice at most: a step-up may follow).
   */
  private async reauthorized<T>(client: RegistryClient, send: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await send();
      } catch (error) {
        const callback =
          UnauthorizedError.isInstance(error) && attempt < 2
            ? this.options.oauth?.takeCallback()
            : undefined;
        const transport = this.transport;
        if (!callback || !transport || this.client !== client) throw error;
        await (transport as StreamableHTTPClientTransport | SSEClientTransport).finishAuth(
          callback,
        );
      }
    }
  }

  private async callOnce(
    client: RegistryClient,
    toolName: string,
    args: Record<string, unknown>,
    options: CallOptions,
    timeoutMs: number,
    definition: McpTool | undefined,
  ): Promise<CallToolResult> {
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
      if (options.signal?.aborted)
        throw new CancelledError({
          message: `Call of "${toolName}" on "${this.name}" was cancelled`,
          cause: error,
        });
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
        throw new TimeoutError({
          timeoutMs,
          message: `Tool "${toolName}" on MCP server "${this.name}" did not answer within ${timeoutMs} ms (the server was sent notifications/cancelled)`,
          cause: error,
        });
      }
      if (isConnectionFailure(error)) {
        this.handleDrop(client, errorMessage(error));
        throw new ServerUnavailableError({
          server: this.name,
          toolName,
          reason: this.reason ?? errorMessage(error),
          cause: error,
        });
      }
      if (error instanceof ProtocolError) {
        throw new ToolCallProtocolError({
          server: this.name,
          toolName,
          rpcCode: error.code,
          message: `MCP server "${this.name}" rejected the call of "${toolName}": ${error.message}`,
          category: error.code === -32602 ? 'invalidArguments' : 'unknown',
          cause: error,
        });
      }
      throw error;
    }
  }

  /** The connection dropped (process exited, socket closed): mark down, keep tools, reconnect with backoff. */
  private handleDrop(client: Client | undefined, why: string): void {
    if (
      this.closed ||
      client !== this.client ||
      this.status === 'down' ||
      this.status === 'connecting'
    )
      return;
    const transport = this.lastProcess;
    let reason = why;
    if (this.transportKind === 'stdio' && transport?.exitStatus) {
      const { code, signal } = transport.exitStatus;
      const tail = lastLine(this.redact(transport.stderrText));
      reason = `the server process exited (${signal ? `signal ${signal}` : `code ${code}`})${tail ? `: ${tail}` : ''}`;
    }
    this.options.logger.warn(`MCP server "${this.name}" went down: ${reason}; reconnecting`);
    this.generation++;
    void this.teardown();
    this.setStatus('down', reason);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    const { initialMs, maxMs } = this.options.backoff;
    const delay = Math.min(maxMs, initialMs * 2 ** this.attempt);
    this.attempt++;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.restarts++;
      void this.connect();
    }, delay);
    unrefTimer(this.retryTimer);
  }

  private async teardown(): Promise<void> {
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    if (client) client.onclose = undefined;
    try {
      if (client) await client.close();
    } catch {
      // the connection is going away anyway
    }
    try {
      if (transport) await transport.close();
    } catch {
      // already closed
    }
  }

  private setStatus(status: ServerStatus, reason: string | undefined): void {
    const changed = status !== this.status || reason !== this.reason;
    this.status = status;
    this.reason = reason;
    if (changed) this.options.onChange('status');
  }

  private describeFailure(error: unknown, signal: AbortSignal): string {
    const oauth = this.options.oauth;
    if (
      oauth &&
      !signal.aborted &&
      (isOAuthFailure(error) ||
        (error instanceof SdkHttpError && [401, 403].includes(error.data?.status ?? 0)))
    )
      return describeOAuthFailure(error, oauth);
    let reason =
      signal.aborted && TimeoutError.isInstance(signal.reason)
        ? (signal.reason as Error).message
        : errorMessage(error);
    if ((error as NodeJS.ErrnoException)?.code === 'ENOENT' && this.transportKind === 'stdio') {
      return `command not found: ${this.config.command}`;
    }
    const child = this.lastProcess;
    if (this.transportKind === 'stdio' && child) {
      if (child.exitStatus) {
        const { code, signal: killedBy } = child.exitStatus;
        reason = `the server process exited (${killedBy ? `signal ${killedBy}` : `code ${code}`}) during startup: ${reason}`;
      }
      const tail = lastLine(this.redact(child.stderrText));
      if (tail && !reason.includes(tail)) reason += ` (stderr: ${tail})`;
    }
    return reason;
  }

  /** Disconnects for good: no more restarts, the process group is killed. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.refreshTimer);
    this.retryTimer = undefined;
    this.generation++;
    await this.teardown();
  }
}

function withoutOutputSchema(tool: McpTool): McpTool {
  const { outputSchema: _ignored, ...rest } = tool;
  return rest;
}

/** A Standard Schema that accepts any `tools/list` page whose `tools` is an array; tools are checked one by one later. */
const lenientToolList: StandardSchemaV1<unknown, { tools: McpTool[]; nextCursor?: string }> = {
  '~standard': {
    version: 1,
    vendor: 'toolwire',
    validate: (value: unknown) => {
      const page = value as { tools?: unknown; nextCursor?: unknown } | null;
      if (page === null || typeof page !== 'object' || !Array.isArray(page.tools)) {
        return { issues: [{ message: 'tools/list result has no "tools" array', path: ['tools'] }] };
      }
      return {
        value: {
          tools: page.tools.filter(
            (tool): tool is McpTool => tool !== null && typeof tool === 'object',
          ) as McpTool[],
          ...(typeof page.nextCursor === 'string' ? { nextCursor: page.nextCursor } : {}),
        },
      };
    },
  },
};

function lastLine(text: string | undefined): string | undefined {
  const lines = (text ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const line = lines.at(-1);
  return line === undefined ? undefined : line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function isConnectionFailure(error: unknown): boolean {
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

/** Why a listed tool cannot be offered (name, input schema that is not an object or does not compile), or undefined. */
function definitionProblem(tool: McpTool): string | undefined {
  if (typeof tool.name !== 'string' || tool.name === '') return 'it has no name';
  if (
    tool.inputSchema === null ||
    typeof tool.inputSchema !== 'object' ||
    Array.isArray(tool.inputSchema)
  )
    return '/inputSchema: input schema must be a JSON Schema object';
  const spec: ToolSpec = {
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema as ToolSpec['inputSchema'],
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as ToolSpec['inputSchema'] } : {}),
  };
  const headerProblem = mcpHeaderProblem(tool.inputSchema as Record<string, unknown>);
  if (headerProblem) return headerProblem;
  const issues = validateToolDefinition(spec, { mode: 'lenient', namePattern: /^.+$/ }).filter(
    (issue) =>
      issue.pointer.startsWith('/inputSchema') || issue.pointer.startsWith('/outputSchema'),
  );
  // Depth and required-not-in-properties are advisory; a schema that is not an object or does not compile is not usable.
  const fatal = issues.filter((issue) =>
    /must be a JSON Schema object|must have type "object"|does not compile/.test(issue.message),
  );
  return fatal.length > 0
    ? fatal.map((issue) => `${issue.pointer}: ${issue.message}`).join('; ')
    : undefined;
}

const HEADER_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * SEP-2243: a property's `x-mcp-header` names an HTTP header the client mirrors the value into.
 * It must be a non-empty token (no spaces, colons, control or non-ASCII characters), sit on a
 * string, integer or boolean property, and be unique ignoring case; otherwise the tool is unusable.
 */
function mcpHeaderProblem(schema: Record<string, unknown>): string | undefined {
  const properties = schema.properties;
  if (properties === null || typeof properties !== 'object') return undefined;
  const seen = new Map<string, string>();
  for (const [name, property] of Object.entries(properties as Record<string, unknown>)) {
    if (property === null || typeof property !== 'object' || !('x-mcp-header' in property))
      continue;
    const header = (property as Record<string, unknown>)['x-mcp-header'];
    const where = `/inputSchema/properties/${name}/x-mcp-header`;
    if (typeof header !== 'string' || header === '')
      return `${where}: must be a non-empty header name`;
    if (!HEADER_TOKEN.test(header))
      return `${where}: ${JSON.stringify(header)} is not a valid HTTP header name`;
    const type = (property as Record<string, unknown>).type;
    if (type !== 'string' && type !== 'integer' && type !== 'boolean') {
      return `${where}: only string, integer and boolean parameters can be mirrored into a header (this one is ${JSON.stringify(type)})`;
    }
    const previous = seen.get(header.toLowerCase());
    if (previous !== undefined)
      return `${where}: header ${JSON.stringify(header)} is also used by "${previous}"`;
    seen.set(header.toLowerCase(), name);
  }
  return undefined;
}

/** Stable JSON (sorted keys) of a whole definition: annotations and schemas included. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map(
        (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`,
      )
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function sameDefinitions(a: readonly McpTool[], b: readonly McpTool[]): boolean {
  return a.length === b.length && canonicalJson(a) === canonicalJson(b);
}

function describeChanges(
  server: string,
  before: readonly McpTool[],
  after: readonly McpTool[],
  logger: Logger,
): void {
  if (before.length === 0) return;
  const old = new Map(before.map((tool) => [tool.name, tool]));
  const added = after.filter((tool) => !old.has(tool.name)).map((tool) => tool.name);
  const removed = before
    .filter((tool) => !after.some((t) => t.name === tool.name))
    .map((tool) => tool.name);
  const changed: string[] = [];
  for (const tool of after) {
    const previous = old.get(tool.name);
    if (!previous || canonicalJson(previous) === canonicalJson(tool)) continue;
    changed.push(tool.name);
    if (canonicalJson(previous.annotations ?? {}) !== canonicalJson(tool.annotations ?? {})) {
      logger.warn(
        `MCP server "${server}": annotations of tool "${tool.name}" changed from ${canonicalJson(previous.annotations ?? {})} to ${canonicalJson(tool.annotations ?? {})}`,
      );
    }
  }
  logger.info?.(
    `MCP server "${server}" tool list changed: added [${added.join(', ')}], removed [${removed.join(', ')}], changed [${changed.join(', ')}]`,
  );
}
