import type { Tracer } from '@opentelemetry/api';
import type { AnyTool } from '@toolwire/schema';
import { authTokensOf, type AuthToken, type ToolwireConfig } from '@toolwire/config';
import { ArgumentRules, filesystemDirectories, type PathArgumentRule } from '../argument-rules.js';
import { callerLimitsOf, type CallerLimits } from '../caller-limits.js';
import type { AuditEntry, AuditSink } from '../audit-log.js';
import type { BreakerStateStore } from '../breaker-store.js';
import type { CircuitBreaker, CircuitBreakerOptions } from '../circuit-breaker.js';
import { UpstreamError, type HttpUpstream } from '../http-upstream.js';
import { JsonRpcFault, POLICY_REFUSED, unknownTool } from '../json-rpc.js';
import { ForwarderMetrics } from '../metrics.js';
import { ToolPolicy, type PolicyRefusal } from '../policy.js';
import type { RateLimiter } from '../rate-limiter.js';
import type { ResultCacheStore } from '../result-cache.js';
import type { CallToolResult, ToolSource } from '../tool-source.js';
import { CallTracer } from '../tracing.js';
import { Admission, type Admitted } from './admission.js';
import { CallCache } from './call-cache.js';
import { callerOf, type CallContext } from './call-context.js';
import { CallRecorder, type CallRecord, type RunningCallView } from './call-record.js';
import { CallSlots } from './call-slots.js';
import {
  CallerScope,
  type CallerToolSource,
  type CallerToolsProvider,
  type ViewScope,
  type VisibleTools,
} from './caller-scope.js';
import { errorType, toFault, UpstreamExecutor } from './execute-upstream.js';
import { HttpUpstreams, type UpstreamEndpoints } from './http-upstreams.js';
import { Stores } from './stores.js';
import { NATIVE, ToolIndex, type ToolEntry } from './tool-index.js';
import type { ToolPins } from '../pins/tool-pins.js';
import type { AccessTokenVerifier } from '../auth/access-token-verifier.js';
import { UpstreamCredentials } from '../auth/upstream-credentials.js';
import type { UserOAuth } from '../auth/user-oauth.js';
import { UpstreamHealthMonitor } from './upstream-health.js';

/** What the call pipeline is made of; `CreateForwarderOptions` extends it. */
export interface CallPipelineOptions {
  /** The registry (`@toolwire/mcp`'s `createRegistry(...)`) or any `ToolSource`. */
  source: ToolSource;
  /** Extra in-process tools (`defineTool` from `@toolwire/schema`), exposed under their own names. */
  nativeTools?: AnyTool[];
  /**
   * Per-upstream streamable HTTP endpoints for the fast path. By default the `url` of
   * `config.mcpServers.<name>` is used; `false` sends that upstream's calls through the source.
   */
  upstreams?: UpstreamEndpoints;
  /** Glob over exposed names → timeout in ms (default `config.policy.timeoutMs`, else 30 s). */
  toolTimeouts?: Record<string, number>;
  /** Path arguments that must stay inside allowed roots. */
  argumentRules?: PathArgumentRule[];
  /** Validate arguments against the tool's input schema before forwarding (default true). */
  validateArguments?: boolean;
  /**
   * Cache results of tools annotated `readOnlyHint` (default `config.cache.readOnlyTools`, else
   * false); `config.cache.tools` opts tools in by name.
   */
  cacheReadOnlyTools?: boolean;
  breaker?: CircuitBreakerOptions;
  /** Retry read-only/idempotent tools once on timeout or connection loss (default true). */
  retry?: boolean;
  /** Audit sink; default JSON lines on stderr; `false` turns auditing off. */
  audit?: AuditSink | false;
  /** Log arguments verbatim in the audit line (default false: redacted to their types). */
  auditArguments?: boolean;
  tracer?: Tracer;
  /** Default: shared through `config.redis` when set, else in process memory. */
  rateLimiter?: RateLimiter;
  /**
   * Where results are cached. Default: `RedisResultCache` (shared, with a local copy in front)
   * when `config.redis` is set, else the in-memory `ResultCache`. A store passed here is not
   * closed by `close()`.
   */
  resultCache?: ResultCacheStore;
  /**
   * Where circuit-breaker transitions are shared. Default: `RedisBreakerStateStore` when
   * `config.redis` is set, else a `MemoryBreakerStateStore` of this forwarder alone. A store
   * passed here is not closed by `close()`.
   */
  breakerState?: BreakerStateStore;
  /** Ping idle streamable-HTTP upstreams this often, ±25% (default 2000 ms; 0 turns it off). */
  probeIntervalMs?: number;
  /** Tools made per caller on `/mcp` (code mode's `execute_code`), run as that caller. */
  callerTools?: CallerToolsProvider;
  /**
   * Pinned tool definitions (`policy.pinning`): an upstream tool whose definition changed since it
   * was pinned is held back or flagged. Default: none (the forwarder makes one from the config).
   */
  pins?: ToolPins;
  /**
   * The checker of `auth.jwt` access tokens; its issuer's token endpoint serves the token exchanges
   * of upstreams with `auth.type: "token-exchange"`.
   */
  accessTokens?: AccessTokenVerifier;
  /** Per-user OAuth to the upstreams whose `auth` has `perUser`. */
  userOAuth?: UserOAuth;
}

/**
 * Everything between "a client asked for tool X" and "here is the result", in the order a call
 * meets it: the tool index (`tool-index.ts`) resolves the name once; admission
 * (`admission.ts`) applies policy, rate limits, the input schema and path rules; the result cache
 * (`call-cache.ts`) may answer; the executor (`execute-upstream.ts`) runs it behind the
 * upstream's breaker with timeout and retry (`upstream-health.ts` keeps what calls and probes
 * saw); the recorder (`call-record.ts`) writes metrics and the audit line.
 */
export class CallPipeline {
  readonly source: ToolSource;
  readonly config: ToolwireConfig;
  readonly policy: ToolPolicy;
  readonly metrics: ForwarderMetrics;
  readonly separator: string;
  readonly index: ToolIndex;
  /** Pinned tool definitions, when `policy.pinning` is on. */
  readonly pins: ToolPins | undefined;
  /** The caller's identity towards upstreams that act as the caller. */
  readonly credentials: UpstreamCredentials;
  private readonly stores: Stores;
  private readonly resultCache: CallCache;
  private readonly channels: HttpUpstreams;
  private readonly health: UpstreamHealthMonitor;
  private readonly callers: CallerScope;
  private readonly admission: Admission;
  private readonly executor: UpstreamExecutor;
  private readonly recorder: CallRecorder;
  private readonly tracer: CallTracer;
  private readonly slots: CallSlots;
  private readonly limits = new WeakMap<AuthToken, CallerLimits>();
  private readonly anonymousLimits: CallerLimits;
  private readonly callerTools: CallerToolsProvider | undefined;
  private readonly changeListeners = new Set<(server: string) => void>();
  private readonly unsubscribe: () => void;

  constructor(
    options: CallPipelineOptions & { config: ToolwireConfig; metrics?: ForwarderMetrics },
  ) {
    const { config, source } = options;
    this.source = source;
    this.config = config;
    this.policy = new ToolPolicy(config);
    this.metrics = options.metrics ?? new ForwarderMetrics();
    const cacheReadOnly = options.cacheReadOnlyTools ?? config.cache?.readOnlyTools ?? false;
    this.stores = new Stores({
      config,
      caching: config.cache?.tools !== undefined || cacheReadOnly,
      ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
      ...(options.resultCache ? { resultCache: options.resultCache } : {}),
      ...(options.breakerState ? { breakerState: options.breakerState } : {}),
    });
    this.index = new ToolIndex({
      source,
      config,
      ...(options.nativeTools ? { nativeTools: options.nativeTools } : {}),
      ...(options.toolTimeouts ? { toolTimeouts: options.toolTimeouts } : {}),
      ...(options.validateArguments !== undefined
        ? { validateArguments: options.validateArguments }
        : {}),
      cacheReadOnly,
      cacheAvailable: this.stores.cache !== undefined,
      ...(options.pins ? { pins: options.pins } : {}),
    });
    this.pins = options.pins;
    this.separator = this.index.separator;
    this.resultCache = new CallCache(this.stores.cache, this.metrics);
    this.channels = new HttpUpstreams(config, options.upstreams);
    this.health = new UpstreamHealthMonitor({
      source,
      http: this.channels,
      metrics: this.metrics,
      breakerStore: this.stores.breakerStore,
      ...(options.breaker ? { breaker: options.breaker } : {}),
      ...(options.probeIntervalMs !== undefined
        ? { probeIntervalMs: options.probeIntervalMs }
        : {}),
    });
    this.callerTools = options.callerTools;
    this.callers = new CallerScope({
      source,
      index: this.index,
      policy: this.policy,
      ...(options.callerTools ? { callerTools: options.callerTools } : {}),
      call: (name, args, context) => this.call(name, args, context),
      onChange: (listener) => this.onChange(listener),
    });
    this.recorder = new CallRecorder({
      metrics: this.metrics,
      ...(options.audit !== undefined ? { audit: options.audit } : {}),
      ...(options.auditArguments !== undefined ? { auditArguments: options.auditArguments } : {}),
    });
    this.admission = new Admission({
      config,
      policy: this.policy,
      refusal: (entry, token) => this.callers.refusal(entry, token),
      rateLimiter: this.stores.rateLimiter,
      rules: new ArgumentRules(
        [...(options.argumentRules ?? []), ...(config.policy?.paths ?? [])],
        filesystemDirectories(config.mcpServers),
      ),
      metrics: this.metrics,
      record: (record) => this.recorder.finish(record),
    });
    this.credentials = new UpstreamCredentials(config, options.accessTokens, options.userOAuth);
    this.executor = new UpstreamExecutor({
      source,
      http: this.channels,
      credentials: this.credentials,
      health: this.health,
      ...(options.retry !== undefined ? { retry: options.retry } : {}),
      asCaller: (context) => this.callers.asCaller(context),
    });
    this.tracer = new CallTracer(options.tracer);
    this.slots = new CallSlots(config, authTokensOf(config));
    this.anonymousLimits = callerLimitsOf(config, undefined);
    const unsubscribeTools = source.onToolsChanged(({ server }) => this.toolsChanged(server));
    // An approval changes what is listed: every upstream's clients hear of it.
    const unsubscribePins = options.pins?.onChange(({ initial }) => {
      this.index.invalidate();
      if (initial) return;
      for (const server of source.servers())
        for (const listener of this.changeListeners) listener(server.name);
    });
    this.unsubscribe = () => {
      unsubscribeTools();
      unsubscribePins?.();
    };
  }

  /** Runs one call through the whole pipeline. Refusals and upstream failures throw `JsonRpcFault`. */
  async call(name: string, args: unknown, context: CallContext = {}): Promise<CallToolResult> {
    const entry =
      this.index.all().get(name) ?? (await this.callers.callerEntry(context.token, name));
    if (!entry) {
      // A held tool is named as such only to a caller granted it; to others it does not exist.
      const held = this.index.held().get(name);
      if (held && !this.callers.refusal(held, context.token)) throw heldFault(name);
      throw unknownTool(name);
    }
    return this.run(entry, name, args, context);
  }

  /**
   * Runs one call of a tool already resolved (by the dispatcher, the gateway tool or the route).
   * `shownAs` is the name the client used, when it is not `name` (a passthrough route's own name).
   */
  async run(
    entry: ToolEntry,
    name: string,
    args: unknown,
    context: CallContext = {},
    shownAs = name,
  ): Promise<CallToolResult> {
    const started = performance.now();
    const caller = callerOf(context);
    const admitted = await this.admission.admit(entry, name, args, caller, started, shownAs);
    if (admitted.result) return admitted.result;
    const input = admitted.args;
    const record = { entry, caller, args, started };

    const cached = this.resultCache.lookup(entry, caller.client, name, input);
    const hit = cached.hit instanceof Promise ? await cached.hit : cached.hit;
    this.resultCache.count(name, cached, hit);
    if (hit) {
      this.recorder.finish({ ...record, outcome: 'cached' });
      return hit;
    }

    // A call to an upstream waits for one of its caller's slots (in-process tools need none).
    let slot;
    try {
      slot =
        entry.server === NATIVE
          ? undefined
          : await this.slots.acquire(caller.client, context.signal);
    } catch (error) {
      this.metrics.rateLimited.labels('calls').inc();
      this.recorder.finish({ ...record, outcome: 'refused', error: (error as Error).message });
      throw error;
    }
    const { span, ctx } = this.tracer.start(name, entry.server, context.meta, caller.client);
    const trace = this.tracer.inject(ctx, context.meta);
    const watch = this.recorder.watch(record);
    // A caller that asked for progress gets it, and the running call shows its latest.
    const forward = context.onProgress;
    const calling: CallContext = forward
      ? {
          ...context,
          onProgress: (progress) => {
            watch.progress(progress);
            forward(progress);
          },
        }
      : context;
    let changed: JsonRpcFault | undefined;
    try {
      const result = await this.executor.execute(entry, input, calling, trace);
      changed = await admitted.recheck?.();
      if (changed) throw changed;
      if (entry.writes) await this.invalidate(entry.server);
      this.resultCache.keep(entry, cached, result);
      const outcome = result.isError ? 'tool_error' : 'ok';
      this.tracer.end(span, outcome);
      this.recorder.finish({ ...record, outcome, traceparent: trace.traceparent }, watch.end());
      return result;
    } catch (error) {
      // A call that failed may still have written (a timeout, a lost answer).
      if (entry.writes) await this.invalidate(entry.server);
      if (changed !== undefined && error === changed) {
        // Refused by the path re-check (and recorded so): the result is withheld.
        this.tracer.end(span, 'error', changed.message);
        throw changed;
      }
      const fault = toFault(error, entry);
      this.metrics.error(name, entry.server, errorType(error));
      this.tracer.end(span, 'error', fault.message);
      // The caller went away (or cancelled): not a failure of the tool or the upstream.
      const cancelled =
        context.signal?.aborted === true ||
        (error instanceof UpstreamError && error.kind === 'cancelled');
      this.recorder.finish(
        {
          ...record,
          outcome: cancelled ? 'cancelled' : 'error',
          error: fault.message,
          traceparent: trace.traceparent,
        },
        watch.end(),
      );
      throw fault;
    } finally {
      watch.end();
      slot?.release();
    }
  }

  /** Calls running for more than a second (with their latest progress), oldest first. */
  runningCalls(): RunningCallView[] {
    return this.recorder.runningCalls();
  }

  /**
   * A slot for one call of the caller to an upstream, held until `release()` (the passthrough
   * relay holds one per relayed `tools/call`); rejects with a rate-limit `JsonRpcFault` when the
   * caller's queue is full.
   */
  callSlot(token: AuthToken | undefined, signal?: AbortSignal) {
    return this.slots.acquire(callerOf({ token }).client, signal);
  }

  /** Running and waiting calls to upstreams, per client. */
  callUsage() {
    return this.slots.usage();
  }

  /** What one caller may hold at once (`policy.limits`, its token's `limits` over it). */
  limitsOf(token: AuthToken | undefined): CallerLimits {
    if (!token) return this.anonymousLimits;
    let limits = this.limits.get(token);
    if (!limits) this.limits.set(token, (limits = callerLimitsOf(this.config, token)));
    return limits;
  }

  /**
   * The checks of `call` without the call itself, for the passthrough relay: throws a
   * `JsonRpcFault` for a policy or rate-limit refusal; answers `result` (an `isError` result) for
   * arguments that fail the schema; else the `args` to send (path arguments made real paths) and,
   * with path rules, a `recheck` to ask once the answer is in.
   */
  async admit(
    name: string,
    args: unknown,
    token: AuthToken | undefined,
    shownAs = name,
  ): Promise<Admitted> {
    const caller = callerOf({ token });
    const entry = this.index.resolve(name);
    if (!entry) {
      if (this.index.isHeld(name) && !this.policy.check(name, token)) throw heldFault(name);
      await this.admission.admitUnlisted(name, caller, shownAs);
      return { args };
    }
    return this.admission.admit(entry, name, args, caller, performance.now(), shownAs);
  }

  /** Records a call the passthrough relay forwarded (metrics and audit). */
  record(
    name: string,
    token: AuthToken | undefined,
    args: unknown,
    started: number,
    outcome: AuditEntry['outcome'],
    error?: string,
  ): void {
    const entry = this.index.resolve(name);
    if (!entry) return;
    const record: CallRecord = { entry, caller: callerOf({ token }), args, started, outcome };
    this.recorder.finish(error === undefined ? record : { ...record, error });
  }

  /** An audit line that is not a call's: a server-to-client request, a task. */
  audit(entry: Omit<AuditEntry, 'time'>): void {
    this.recorder.line(entry);
  }

  /** After the passthrough relay forwarded a call: a write drops its upstream's cached reads. */
  async afterRelayedCall(name: string, server: string): Promise<void> {
    const entry = this.index.resolve(name);
    if (!entry || entry.writes) await this.invalidate(server);
  }

  /** Called when an upstream's tool list changes: the index is rebuilt and its cached results dropped. */
  toolsChanged(server: string): void {
    this.index.invalidate();
    void this.invalidate(server);
    for (const listener of this.changeListeners) listener(server);
  }

  /** Drops `server`'s cached results for every client (on every instance with a shared store). */
  async invalidate(server: string): Promise<void> {
    await this.resultCache.invalidate(server);
  }

  onChange(listener: (server: string) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  // What the dispatcher, the relay and the apps read, from the part that knows it.

  /** Every tool, native first, keyed by exposed name. */
  tools(): Map<string, ToolEntry> {
    return this.index.all();
  }

  /** The entry of a tool by its namespaced name, also when it is exposed under an alias. */
  byCanonicalName(name: string): ToolEntry | undefined {
    return this.index.byCanonicalName(name);
  }

  /** `<server><separator><originalName>`: what policy patterns match, whatever the exposed name. */
  canonicalName(entry: ToolEntry): string {
    return entry.canonical;
  }

  /** The result store in use (`undefined` when nothing is cacheable). */
  get cache(): ResultCacheStore | undefined {
    return this.stores.currentCache;
  }

  /** The lean HTTP channel for an upstream, when it speaks streamable HTTP. */
  httpUpstream(server: string): HttpUpstream | undefined {
    return this.channels.get(server);
  }

  /** The open lean HTTP channels, by upstream. */
  get http(): ReadonlyMap<string, HttpUpstream> {
    return this.channels.open;
  }

  breaker(server: string): CircuitBreaker {
    return this.health.breaker(server);
  }

  /**
   * An upstream as the source reports it, made `down` (with the reason) when this process's calls
   * or probes found it unreachable, or its circuit breaker is open.
   */
  withLiveHealth<T extends { name: string; status: string; reason?: string }>(server: T): T {
    return this.health.withLiveHealth(server);
  }

  /** Pings the idle HTTP upstreams now (what the probe timer does every `probeIntervalMs`). */
  probeIdle(): Promise<void> {
    return this.health.probeIdle();
  }

  refusal(entry: ToolEntry, token: AuthToken | undefined): PolicyRefusal | null {
    return this.callers.refusal(entry, token);
  }

  scope(token: AuthToken | undefined): ViewScope {
    return this.callers.scope(token);
  }

  /** Whether the client reaches `server` at all (see `CallerScope.reaches`). */
  reaches(server: string, token: AuthToken | undefined): boolean {
    return this.callers.reaches(server, token);
  }

  /**
   * The audit line of a refused request for a prompt or an upstream's resources (the client was
   * answered as for one that does not exist): `subject` names what was asked for.
   */
  recordRefusal(
    subject: string,
    server: string,
    caller: { token: AuthToken | undefined; address?: string },
    error: string,
  ): void {
    this.recorder.refusal(subject, server, callerOf(caller), error);
  }

  visibleTools(token: AuthToken | undefined, server?: string): VisibleTools {
    return this.callers.visibleTools(token, server);
  }

  asCaller(context?: Pick<CallContext, 'token' | 'address' | 'meta' | 'signal'>): CallerToolSource {
    return this.callers.asCaller(context);
  }

  listedFor(token: AuthToken | undefined, visible: ToolEntry[]): Promise<ToolEntry[]> {
    return this.callers.listedFor(token, visible);
  }

  /** Waits for the stores that connect somewhere (the Redis ones); see `Forwarder.ready`. */
  ready(timeoutMs = 5000): Promise<void> {
    return this.stores.ready(timeoutMs);
  }

  async close(): Promise<void> {
    this.slots.close();
    await this.callerTools?.close?.();
    this.health.close();
    this.unsubscribe();
    await this.channels.close();
    await this.stores.close();
    this.recorder.close();
  }
}

/**
 * A call to a tool held back by its pin: refused by the pinning policy, with the way out named (the
 * client learns no more than that the tool is waiting for an admin).
 */
function heldFault(name: string): JsonRpcFault {
  return new JsonRpcFault(
    POLICY_REFUSED,
    `Tool "${name}" changed since it was approved and is held until an admin approves it (policy.pinning; toolwire tools approve ${name})`,
    { policy: 'policy.pinning', tool: name },
  );
}
