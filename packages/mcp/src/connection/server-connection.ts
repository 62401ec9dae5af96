import {
  type Client,
  SdkError,
  SdkErrorCode,
  type CallToolResult,
  type PriorDiscovery,
  type SSEClientTransport,
  type StreamableHTTPClientTransport,
  type Tool as McpTool,
  type Transport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { TimeoutError, errorMessage } from '@toolwire/schema';
import { transportOf, type McpServerConfig, type TransportKind } from '@toolwire/config';
import { ServerUnavailableError } from '../errors.js';
import type { RegistryClient } from '../registry-client.js';
import { describeOAuthFailure, isOAuthFailure } from '../oauth-session.js';
import type { CallToolOptions, ServerStatus, StdioTransport } from '../registry-types.js';
import { CallDefinitions, isConnectionFailure, sendToolCall, withReauthorization } from './call.js';
import { negotiated, openAttempt } from './client.js';
import { runsAsTask, sendTaskCall } from './task-call.js';
import { describeConnectFailure, describeExit } from './connect-failure.js';
import { noStreamableHttp, transportsToTry } from './transport.js';
import { checkDefinitions } from './definition-checks.js';
import {
  describeChanges,
  lenientToolList,
  listAllTools,
  openListenStream,
  sameDefinitions,
} from './discovery.js';
import type { ServerConnectionOptions } from './connection-options.js';
import { unrefTimer } from '../unref-timer.js';

export type { ServerConnectionOptions } from './connection-options.js';

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
  private readonly callDefinitions = new CallDefinitions();
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
  private attempts = 0;
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
      this.attempts = 0;
      this.lastFailure = undefined;
      this.setStatus('ok', undefined);
      this.scheduleRefresh();
    } catch (error) {
      if (generation !== this.generation || this.closed) return;
      const reason = describeConnectFailure(error, {
        signal: controller.signal,
        transportKind: this.transportKind,
        command: this.config.command,
        oauth: this.options.oauth,
        child: this.lastProcess,
        redact: (text) => this.redact(text),
      });
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
    const kinds = transportsToTry(this.config, this.transportKind);
    let lastError: unknown;
    for (const kind of kinds) {
      try {
        await this.connectWith(kind, mode, signal, timeoutMs);
        this.connectedVia = kind;
        return;
      } catch (error) {
        lastError = error;
        await this.teardown();
        const status = noStreamableHttp(kind, error);
        if (status === undefined) throw error;
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
      const { transport, client } = this.attempt(kind, useLegacy ? 'legacy' : mode);
      this.transport = transport;
      this.client = client;
      try {
        await client.connect(transport, {
          signal,
          timeout: timeoutMs,
          ...(prior ? { prior } : {}),
        });
        ({
          protocolVersion: this.protocolVersion,
          serverInfo: this.serverInfo,
          instructions: this.instructions,
          prior: this.prior,
        } = negotiated(client));
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

  /** A new transport and SDK client for one connection attempt. */
  private attempt(kind: TransportKind, mode: 'auto' | 'legacy' | 'modern') {
    const made = openAttempt(kind, mode, {
      options: this.options,
      transportKind: this.transportKind,
      redact: (text) => this.redact(text),
      events: {
        onListChanged: (from, list) => {
          if (this.client !== from) return;
          if (list === 'tools') void this.refresh('list_changed');
          else this.options.onChange(list);
        },
        onChannelLost: (from, why) => void this.checkAlive(from, why),
      },
    });
    if (kind === 'stdio') this.lastProcess = made.transport as StdioTransport;
    return made;
  }

  /** Keeps a 2026-07-28 `subscriptions/listen` stream open; when it ends, checks the server. */
  private async listen(client: Client, timeoutMs: number): Promise<void> {
    const subscription = await openListenStream(client, {
      adopted: this.adopted,
      timeoutMs,
      onFailure: (error) =>
        this.options.logger.warn(
          `MCP server "${this.name}": subscriptions/listen failed, tool list changes arrive only on refresh: ${errorMessage(error)}`,
        ),
    });
    void subscription?.closed.then((cause) => {
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
    const all = await listAllTools((params) =>
      this.reauthorized(client, () =>
        client.request({ method: 'tools/list', params }, lenientToolList, {
          ...(signal ? { signal } : {}),
          ...(timeoutMs ? { timeout: timeoutMs } : {}),
        }),
      ),
    );
    const { accepted, rejected } = checkDefinitions(all);
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
    options: CallToolOptions = {},
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
    const definition = this.callDefinitions.get(this.tools, toolName);
    const request = { server: this.name, toolName, args, options, timeoutMs, definition };
    const onConnectionLost = (why: string) => {
      this.handleDrop(client, why);
      return this.reason ?? why;
    };
    // Core tasks are 2025-11-25 vocabulary: a 2026-07-28 connection calls the tool as it is.
    const asTask =
      client.getProtocolEra() === 'legacy' &&
      runsAsTask(definition?.execution?.taskSupport, options.task, this.options.tasks);
    try {
      return await this.reauthorized(client, () =>
        asTask
          ? sendTaskCall(client, request, this.options.tasks, onConnectionLost)
          : sendToolCall(client, request, onConnectionLost),
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

  /** `send`, again after an OAuth re-authorization (`withReauthorization`). */
  private reauthorized<T>(client: RegistryClient, send: () => Promise<T>): Promise<T> {
    return withReauthorization(
      this.options.oauth,
      () => (this.client === client ? this.transport : undefined),
      send,
    );
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
    if (this.transportKind === 'stdio' && transport?.exitStatus)
      reason = describeExit(transport, (text) => this.redact(text));
    this.options.logger.warn(`MCP server "${this.name}" went down: ${reason}; reconnecting`);
    this.generation++;
    void this.teardown();
    this.setStatus('down', reason);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    const { initialMs, maxMs } = this.options.backoff;
    const delay = Math.min(maxMs, initialMs * 2 ** this.attempts);
    this.attempts++;
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
