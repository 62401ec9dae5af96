import { randomUUID } from 'node:crypto';
import type { Tracer } from '@opentelemetry/api';
import {
  compileGlobs,
  errorMessage,
  formatIssues,
  getSchemaValidator,
  ToolwireError,
  type AnyTool,
  type GlobMatcher as Matcher,
  type SchemaValidator,
  type ToolSource as BaseToolSource,
} from '@toolwire/schema';
import { ArgumentRules, filesystemDirectories, type PathArgumentRule } from './argument-rules.js';
import {
  createJsonLinesAuditSink,
  isoTimeNow,
  redactArguments,
  type AuditEntry,
  type AuditSink,
} from './audit-log.js';
import { CircuitBreaker, type CircuitBreakerOptions } from './circuit-breaker.js';
import type { AuthToken, ToolwireConfig } from '@toolwire/config';
import { HttpUpstream, UpstreamError, type UpstreamMessage } from './http-upstream.js';
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  isRecord,
  JsonRpcFault,
  POLICY_REFUSED,
  RATE_LIMITED,
  UPSTREAM_TIMEOUT,
  UPSTREAM_UNAVAILABLE,
  toolErrorOf,
} from './json-rpc.js';
import { ForwarderMetrics } from './metrics.js';
import { runNativeTool } from './native-tools.js';
import { ToolPolicy, type PolicyRefusal } from './policy.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './rate-limiter.js';
import { ResultCache, type ResultCacheStore } from './result-cache.js';
import {
  MemoryBreakerStateStore,
  type BreakerStateMember,
  type BreakerStateStore,
} from './breaker-store.js';
import { RedisBreakerStateStore, RedisResultCache } from './redis-stores.js';
import type {
  CallToolResult,
  SourceCallOptions,
  SourceServer,
  SourceTool,
  ToolSource,
} from './tool-source.js';
import { CallTracer } from './tracing.js';

export const NATIVE = 'native';

/** Who is calling and how to reach them while the call runs. */
export interface CallContext {
  /** The authenticated token, when `auth` is configured. */
  token?: AuthToken;
  signal?: AbortSignal;
  /** The downstream request's `_meta` (progressToken, traceparent, …). */
  meta?: Record<string, unknown>;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Other notifications from the upstream (log messages) for the downstream client. */
  onNotification?: (message: UpstreamMessage) => void;
  /**
   * Further `tools/call` params passed to the upstream unchanged: the 2026-07-28 multi-round-trip
   * `inputResponses` and `requestState` of a retried call.
   */
  extraParams?: Record<string, unknown>;
  /** The caller speaks 2026-07-28 and can answer an `input_required` result. */
  modern?: boolean;
  /** The client's network address (the audit line names it). */
  address?: string;
}

/** Tools made for one caller on top of the pipeline's (code mode's `execute_code`). */
export interface CallerTools {
  /**
   * The added tools, run in process like native tools (policy, limits, audit and spans apply to
   * them by name); their `execute` gets the caller's tools as `context.tools`.
   */
  tools: readonly AnyTool[];
  /**
   * Which of the caller's other tools the aggregated `tools/list` still shows (default: every
   * one). Tools not shown stay callable by name, as the caller's token allows.
   */
  lists?: (name: string) => boolean;
}

/** Makes each caller's `CallerTools` (`CreateForwarderOptions.callerTools`). */
export interface CallerToolsProvider {
  /**
   * `tools` is what the caller may see and call (`CallPipeline.asCaller`); `undefined` adds
   * nothing. Asked on every `tools/list` of `/mcp` and on calls to a name the pipeline does not
   * know, so it should cache what it makes.
   */
  forCaller(caller: {
    token: AuthToken | undefined;
    tools: CallerToolSource;
  }): CallerTools | undefined | Promise<CallerTools | undefined>;
  /** Called when the forwarder closes. */
  close?(): Promise<void>;
}

/** The pipeline's tools as one caller sees them; calls through it run as that caller. */
export interface CallerToolSource extends BaseToolSource {
  listTools(): SourceTool[];
  callTool(name: string, args: unknown, options?: SourceCallOptions): Promise<CallToolResult>;
  /** The upstreams the caller reaches (with their `instructions` when the source has them). */
  servers(): SourceServer[];
  onToolsChanged(listener: (event: { server?: string }) => void): () => void;
}

export interface ToolEntry {
  tool: SourceTool;
  server: string;
  /** `<server><separator><originalName>` (natives: their name): what policy patterns match. */
  canonical: string;
  validator: SchemaValidator | undefined;
  cacheable: boolean;
  /**
   * Neither annotated read-only nor opted into the cache: a call may change what the upstream's
   * reads answer, so its cached entries are dropped after it.
   */
  writes: boolean;
  retryable: boolean;
  timeoutMs: number;
  perToolLimit: number | undefined;
  native?: AnyTool;
}

export interface CallPipelineOptions {
  source: ToolSource;
  config: ToolwireConfig;
  nativeTools?: AnyTool[];
  upstreams?: Record<
    string,
    | { url: string; headers?: Record<string, string>; protocol?: 'auto' | 'modern' | 'legacy' }
    | false
  >;
  toolTimeouts?: Record<string, number>;
  argumentRules?: PathArgumentRule[];
  validateArguments?: boolean;
  cacheReadOnlyTools?: boolean;
  breaker?: CircuitBreakerOptions;
  retry?: boolean;
  audit?: AuditSink | false;
  auditArguments?: boolean;
  metrics?: ForwarderMetrics;
  tracer?: Tracer;
  rateLimiter?: RateLimiter;
  resultCache?: ResultCacheStore;
  breakerState?: BreakerStateStore;
  /**
   * How often an idle streamable-HTTP upstream is pinged, in ms, each wait jittered by ±25%
   * (default 2000; 0 turns probes off). An upstream that answered a call within the interval is
   * not probed.
   */
  probeIntervalMs?: number;
  /** Tools made per caller (code mode's `execute_code`); see `CallerToolsProvider`. */
  callerTools?: CallerToolsProvider;
}

/** What the calls and probes of this process last saw of an HTTP upstream. */
interface Liveness {
  down: boolean;
  reason?: string;
  /** When a call or probe last went to it (ms since the epoch). */
  lastUsed: number;
}

const BREAKER_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;

/** What a client's views may show (`CallPipeline.scope`). */
export interface ViewScope {
  /** Granted `"*"`: everything, operator details (stderr) included. */
  all: boolean;
  /** Exposed names of the tools it may call. */
  tools: Set<string>;
  /** Upstreams it reaches (`native` for the built-in tools). */
  servers: Set<string>;
}

/**
 * Everything between "a client asked for tool X" and "here is the result": lookup, policy,
 * auth scope, rate limits, argument validation and rules, the result cache, the circuit breaker,
 * the upstream hop with timeout and retry, then metrics, a span and an audit line.
 */
interface RunningCall {
  started: number;
  announce: () => void;
}

export class CallPipeline {
  readonly source: ToolSource;
  readonly config: ToolwireConfig;
  readonly policy: ToolPolicy;
  readonly metrics: ForwarderMetrics;
  readonly separator: string;
  private readonly nativeTools: Map<string, AnyTool>;
  private readonly timeouts: Array<[Matcher, number]>;
  private readonly perTool: Array<[Matcher, number]>;
  private readonly cacheTools: Matcher | undefined;
  private readonly cacheReadOnly: boolean;
  readonly cache: ResultCacheStore | undefined;
  private readonly ownsCache: boolean;
  private readonly breakerStore: BreakerStateStore;
  private readonly ownsBreakerStore: boolean;
  private readonly breakerMember: BreakerStateMember;
  private readonly rules: ArgumentRules;
  private readonly validate: boolean;
  private readonly retry: boolean;
  private readonly rateLimiter: RateLimiter;
  private readonly audit: AuditSink | undefined;
  /** Calls in flight not yet announced as running (`watchRunning`), and the sweep over them. */
  private readonly running = new Set<RunningCall>();
  private sweep: NodeJS.Timeout | undefined;
  private readonly auditArguments: boolean;
  private readonly tracer: CallTracer;
  private readonly breakerOptions: CircuitBreakerOptions | undefined;
  private readonly breakers = new Map<string, CircuitBreaker>();
  readonly http = new Map<string, HttpUpstream>();
  private readonly httpConfig: CallPipelineOptions['upstreams'];
  private index: Map<string, ToolEntry> | undefined;
  /** Per tool index (rebuilt with it): entries by namespaced name, for aliases. */
  private readonly canonicalIndex = new WeakMap<Map<string, ToolEntry>, Map<string, ToolEntry>>();
  private readonly liveness = new Map<string, Liveness>();
  private readonly probeIntervalMs: number;
  private probeTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly unsubscribe: () => void;
  private readonly changeListeners = new Set<(server: string) => void>();
  private progressSeq = 0;
  private readonly callerTools: CallerToolsProvider | undefined;
  /** Entries of caller tools, made once per tool object. */
  private readonly callerEntries = new WeakMap<AnyTool, ToolEntry>();

  constructor(options: CallPipelineOptions) {
    this.source = options.source;
    this.config = options.config;
    this.policy = new ToolPolicy(options.config);
    this.metrics = options.metrics ?? new ForwarderMetrics();
    this.separator = options.config.namespace?.separator ?? '__';
    this.nativeTools = new Map((options.nativeTools ?? []).map((tool) => [tool.name, tool]));
    this.timeouts = Object.entries(options.toolTimeouts ?? {}).map(([glob, ms]) => [
      compileGlobs([glob])!,
      ms,
    ]);
    this.perTool = Object.entries(options.config.policy?.rateLimit?.perTool ?? {}).map(
      ([glob, limit]) => [compileGlobs([glob])!, limit],
    );
    this.cacheTools = compileGlobs(options.config.cache?.tools);
    this.cacheReadOnly = options.cacheReadOnlyTools ?? options.config.cache?.readOnlyTools ?? false;
    const redis = options.config.redis;
    if (options.resultCache) {
      this.cache = options.resultCache;
      this.ownsCache = false;
    } else {
      const sizes = {
        ttlMs: (options.config.cache?.ttlSeconds ?? 60) * 1000,
        maxEntries: options.config.cache?.maxEntries ?? 1000,
      };
      this.cache =
        this.cacheTools !== undefined || this.cacheReadOnly
          ? redis
            ? new RedisResultCache(redis, sizes)
            : new ResultCache(sizes)
          : undefined;
      this.ownsCache = true;
    }
    this.ownsBreakerStore = options.breakerState === undefined;
    this.breakerStore =
      options.breakerState ??
      (redis ? new RedisBreakerStateStore(redis) : new MemoryBreakerStateStore());
    this.breakerMember = this.breakerStore.join((server, snapshot) => {
      // Another config's upstream (an older deployment writing to the same Redis) is not ours.
      if (!this.breakers.has(server) && !this.source.servers().some((s) => s.name === server))
        return;
      this.breaker(server).apply(snapshot);
    });
    this.rules = new ArgumentRules(
      [...(options.argumentRules ?? []), ...(options.config.policy?.paths ?? [])],
      filesystemDirectories(options.config.mcpServers),
    );
    this.validate = options.validateArguments ?? true;
    this.retry = options.retry ?? true;
    this.rateLimiter =
      options.rateLimiter ??
      (options.config.redis ? new RedisRateLimiter(options.config.redis) : new MemoryRateLimiter());
    this.audit =
      options.audit === false
        ? undefined
        : (options.audit ?? createJsonLinesAuditSink(process.stderr));
    this.auditArguments = options.auditArguments ?? false;
    this.tracer = new CallTracer(options.tracer);
    this.breakerOptions = options.breaker;
    this.httpConfig = options.upstreams;
    this.unsubscribe = this.source.onToolsChanged(({ server }) => this.toolsChanged(server));
    this.probeIntervalMs = options.probeIntervalMs ?? 2000;
    if (this.probeIntervalMs > 0) this.scheduleProbe();
    this.callerTools = options.callerTools;
  }

  private scheduleProbe(): void {
    if (this.closed) return;
    const wait = this.probeIntervalMs * (0.75 + Math.random() * 0.5);
    this.probeTimer = setTimeout(() => {
      void this.probeIdle().finally(() => this.scheduleProbe());
    }, wait);
    this.probeTimer.unref();
  }

  /** Pings every HTTP upstream that no call reached lately (and every one marked down). */
  private async probeIdle(): Promise<void> {
    const now = Date.now();
    const probes: Array<Promise<void>> = [];
    for (const server of this.source.servers()) {
      if (server.status === 'disabled') continue;
      const http = this.httpUpstream(server.name);
      if (!http) continue;
      const live = this.liveness.get(server.name);
      if (live && !live.down && now - live.lastUsed < this.probeIntervalMs) continue;
      probes.push(this.probe(server.name, http, server.status));
    }
    await Promise.all(probes);
  }

  private async probe(server: string, http: HttpUpstream, status: string): Promise<void> {
    try {
      // 2026-07-28 removed ping; server/discover is its cheap equivalent.
      await http.connect();
      await http.request(
        http.modern ? 'server/discover' : 'ping',
        {},
        {
          timeoutMs: Math.min(this.probeIntervalMs, 2000),
        },
      );
    } catch (error) {
      // An error answer (say, no ping on this server) is still an answer.
      if (error instanceof UpstreamError && error.kind !== 'protocol') {
        this.markDown(server, error.message);
        return;
      }
    }
    if (this.closed) return;
    this.markUp(server);
    const breaker = this.breakers.get(server);
    // It answers again: close the breaker now rather than after openMs and a trial call.
    if (breaker && breaker.state !== 'closed') breaker.success();
    if (status === 'down') await this.source.connect?.(server).catch(() => undefined);
  }

  private markUp(server: string): void {
    this.liveness.set(server, { down: false, lastUsed: Date.now() });
  }

  private markDown(server: string, reason: string): void {
    this.liveness.set(server, { down: true, reason, lastUsed: Date.now() });
  }

  /**
   * An upstream as the source reports it, made `down` (with the reason) when this process's calls
   * or probes found it unreachable, or its circuit breaker is open.
   */
  withLiveHealth<T extends { name: string; status: string; reason?: string }>(server: T): T {
    if (server.status === 'disabled') return server;
    const live = this.liveness.get(server.name);
    const breaker = this.breakers.get(server.name);
    if (breaker?.state === 'open') {
      const why = live?.down ? `: ${live.reason}` : '';
      return { ...server, status: 'down', reason: `circuit breaker open${why}` };
    }
    if (live?.down) return { ...server, status: 'down', reason: live.reason };
    return server;
  }

  /** Called when an upstream's tool list changes: the index is rebuilt and its cached results dropped. */
  toolsChanged(server: string): void {
    this.index = undefined;
    void this.invalidate(server);
    for (const listener of this.changeListeners) listener(server);
  }

  /** Drops `server`'s cached results for every client (on every instance with a shared store). */
  async invalidate(server: string): Promise<void> {
    await this.cache?.invalidateServer(server);
  }

  onChange(listener: (server: string) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** The lean HTTP channel for an upstream, when it speaks streamable HTTP. */
  httpUpstream(server: string): HttpUpstream | undefined {
    const existing = this.http.get(server);
    if (existing) return existing;
    const override = this.httpConfig?.[server];
    if (override === false) return undefined;
    const configured = this.config.mcpServers?.[server];
    const url = override?.url ?? configured?.url;
    if (!url || (!override && configured?.transport === 'sse') || configured?.enabled === false)
      return undefined;
    const upstream = new HttpUpstream({
      name: server,
      url,
      headers: override?.headers ?? configured?.headers,
      protocol: override?.protocol,
    });
    this.http.set(server, upstream);
    return upstream;
  }

  breaker(server: string): CircuitBreaker {
    let breaker = this.breakers.get(server);
    if (!breaker) {
      breaker = new CircuitBreaker(this.breakerOptions);
      const gauge = this.metrics.breakerState.labels(server);
      gauge.set(0);
      const created = breaker;
      breaker.onStateChange = (state, origin) => {
        gauge.set(BREAKER_VALUE[state]);
        if (origin === 'local' && state !== 'half-open') {
          this.breakerMember.publish(server, { state, openedAt: created.openedSince });
        }
      };
      this.breakers.set(server, breaker);
    }
    return breaker;
  }

  /** Every tool, native first, keyed by exposed name. */
  tools(): Map<string, ToolEntry> {
    if (this.index) return this.index;
    const index = new Map<string, ToolEntry>();
    for (const tool of this.nativeTools.values()) {
      index.set(
        tool.name,
        this.entry({ ...tool, originalName: tool.name, source: NATIVE, status: 'ok' }, tool),
      );
    }
    for (const tool of this.source.listTools()) {
      if (!index.has(tool.name)) index.set(tool.name, this.entry(tool));
    }
    this.index = index;
    return index;
  }

  private entry(tool: SourceTool, native?: AnyTool): ToolEntry {
    let validator: SchemaValidator | undefined;
    if (this.validate) {
      try {
        validator = getSchemaValidator(tool.inputSchema);
      } catch {
        // A schema ajv cannot compile is the upstream's business: forward without our check.
        validator = undefined;
      }
    }
    const annotations = tool.annotations ?? {};
    const readOnly = annotations.readOnlyHint === true;
    const optedIn = this.cacheTools?.(tool.name) ?? false;
    const idempotent = annotations.idempotentHint === true && annotations.destructiveHint !== true;
    const timeout = this.timeouts.find(([match]) => match(tool.name));
    const limit = this.perTool.find(([match]) => match(tool.name));
    return {
      tool,
      server: tool.source,
      canonical:
        tool.source === NATIVE ? tool.name : `${tool.source}${this.separator}${tool.originalName}`,
      validator,
      cacheable: this.cache !== undefined && ((this.cacheReadOnly && readOnly) || optedIn),
      writes: native === undefined && tool.source !== NATIVE && !readOnly && !optedIn,
      retryable: readOnly || idempotent,
      timeoutMs: timeout?.[1] ?? this.config.policy?.timeoutMs ?? 30_000,
      perToolLimit: limit?.[1],
      native,
    };
  }

  /** `<server><separator><originalName>`: what policy patterns match, whatever the exposed name. */
  canonicalName(entry: ToolEntry): string {
    return entry.canonical;
  }

  /** The entry of a tool by its namespaced name, also when it is exposed under an alias. */
  byCanonicalName(name: string): ToolEntry | undefined {
    const index = this.tools();
    let byCanonical = this.canonicalIndex.get(index);
    if (!byCanonical) {
      byCanonical = new Map([...index.values()].map((entry) => [this.canonicalName(entry), entry]));
      this.canonicalIndex.set(index, byCanonical);
    }
    return byCanonical.get(name);
  }

  /** Why this client may not list or call the tool (by exposed and canonical name), or `null`. */
  refusal(entry: ToolEntry, token: AuthToken | undefined): PolicyRefusal | null {
    return this.policy.check(entry.tool.name, token, this.canonicalName(entry));
  }

  /**
   * What a client's views (metrics, readiness, dashboard) may show: everything for a token granted
   * `"*"`, else the tools it may call and the upstreams it reaches (a visible tool or its resources).
   */
  scope(token: AuthToken | undefined): ViewScope {
    const all = this.policy.grantsEverything(token);
    const tools = new Set<string>();
    const servers = new Set<string>();
    for (const { tool, server } of this.visibleTools(token).tools) {
      tools.add(tool.name);
      servers.add(server);
    }
    for (const server of this.source.servers()) {
      if (!this.policy.checkResources(server.name, token)) servers.add(server.name);
    }
    return { all, tools, servers };
  }

  /** Tools this client may see, plus how many were hidden and why. */
  visibleTools(
    token: AuthToken | undefined,
    server?: string,
  ): { tools: ToolEntry[]; hiddenByPolicy: number; unavailable: number } {
    const tools: ToolEntry[] = [];
    let hiddenByPolicy = 0;
    let unavailable = 0;
    for (const entry of this.tools().values()) {
      if (server !== undefined && entry.server !== server) continue;
      if (this.refusal(entry, token)) {
        hiddenByPolicy++;
        continue;
      }
      if (entry.tool.status === 'unavailable') unavailable++;
      tools.push(entry);
    }
    return { tools, hiddenByPolicy, unavailable };
  }

  /**
   * The tools as one caller sees them: `listTools` gives what its token may see, and a call runs
   * through this pipeline as that caller (token, policy, rate limits, cache, audit with its
   * address), under `context.meta.traceparent` when set. What `/api/code`, the chat endpoints and
   * the native tools of a `/mcp` call (`context.tools`) call tools through.
   */
  asCaller(
    context: Pick<CallContext, 'token' | 'address' | 'meta' | 'signal'> = {},
  ): CallerToolSource {
    return {
      listTools: () => this.visibleTools(context.token).tools.map((entry) => entry.tool),
      callTool: async (name, args, options = {}) => {
        const meta = { ...context.meta, ...options.meta };
        const signal = options.signal ?? context.signal;
        try {
          return await this.call(name, args, {
            ...(context.token ? { token: context.token } : {}),
            ...(context.address !== undefined ? { address: context.address } : {}),
            ...(signal ? { signal } : {}),
            ...(Object.keys(meta).length > 0 ? { meta } : {}),
            ...(options.onProgress ? { onProgress: options.onProgress } : {}),
          });
        } catch (error) {
          // A refusal reads as one to the model (permissionDenied, rateLimited, …).
          throw error instanceof JsonRpcFault ? toolErrorOf(error) : error;
        }
      },
      servers: () => {
        const scope = this.scope(context.token);
        return this.source
          .servers()
          .filter((server) => server.status !== 'disabled')
          .filter((server) => scope.all || scope.servers.has(server.name));
      },
      onToolsChanged: (listener) => this.onChange((server) => listener({ server })),
    };
  }

  /** The caller's own tools (`CallerToolsProvider`), as pipeline entries, with what else it lists. */
  async callerView(
    token: AuthToken | undefined,
  ): Promise<{ entries: ToolEntry[]; lists: (name: string) => boolean } | undefined> {
    if (!this.callerTools) return undefined;
    const made = await this.callerTools.forCaller({ token, tools: this.asCaller({ token }) });
    if (!made) return undefined;
    const entries = made.tools.map((tool) => {
      let entry = this.callerEntries.get(tool);
      if (!entry) {
        entry = this.entry(
          { ...tool, originalName: tool.name, source: NATIVE, status: 'ok' },
          tool,
        );
        this.callerEntries.set(tool, entry);
      }
      return entry;
    });
    return { entries, lists: made.lists ?? (() => true) };
  }

  /**
   * What the aggregated `tools/list` shows this caller: its caller tools it may use, then the
   * visible tools they leave listed.
   */
  async listedFor(token: AuthToken | undefined, visible: ToolEntry[]): Promise<ToolEntry[]> {
    const view = await this.callerView(token);
    if (!view) return visible;
    return [
      ...view.entries.filter((entry) => !this.refusal(entry, token)),
      ...visible.filter((entry) => view.lists(entry.tool.name)),
    ];
  }

  /** Runs one call through the whole pipeline. Refusals and upstream failures throw `JsonRpcFault`. */
  async call(name: string, args: unknown, context: CallContext = {}): Promise<CallToolResult> {
    const started = performance.now();
    const client = context.token?.client ?? 'anonymous';
    const address = context.address;
    const entry =
      this.tools().get(name) ??
      (await this.callerView(context.token))?.entries.find((e) => e.tool.name === name);
    if (!entry) {
      throw new JsonRpcFault(INVALID_PARAMS, `Unknown tool: ${name}`, { tool: name });
    }
    const server = entry.server;
    const refusal = this.refusal(entry, context.token);
    if (refusal) {
      this.finish(entry, client, args, started, 'refused', refusal.message, undefined, address);
      throw new JsonRpcFault(POLICY_REFUSED, refusal.message, {
        policy: refusal.policy,
        tool: name,
      });
    }
    await this.checkRateLimits(entry, client, args, started, address);

    const input = args ?? {};
    if (entry.validator) {
      const checked = entry.validator.validate(input);
      if (!checked.success) {
        const text = `Invalid arguments for tool "${name}": ${formatIssues(checked.issues)}`;
        this.finish(
          entry,
          client,
          args,
          started,
          'refused',
          'invalid arguments',
          undefined,
          address,
        );
        return { content: [{ type: 'text', text }], isError: true };
      }
    }
    if (!this.rules.empty) {
      const violation = await this.rules.check(
        [name, this.canonicalName(entry)],
        input,
        entry.server,
      );
      if (violation) {
        const message = `Argument ${violation.path} of tool "${name}" is refused by policy.paths: ${violation.message}`;
        this.finish(entry, client, args, started, 'refused', message, undefined, address);
        throw new JsonRpcFault(POLICY_REFUSED, message, {
          policy: 'policy.paths',
          tool: name,
          argument: violation.path,
        });
      }
    }

    let cacheKey: string | undefined;
    let generation = 0;
    if (entry.cacheable && this.cache) {
      generation = this.cache.generation(server);
      cacheKey = ResultCache.key(client, name, input);
      const found = this.cache.get(cacheKey, server);
      // The in-memory store answers synchronously: no await (and no extra tick) on its hits.
      const hit = found instanceof Promise ? await found : found;
      this.metrics.cache(name, hit !== undefined);
      if (hit) {
        this.finish(entry, client, args, started, 'cached', undefined, undefined, address);
        return hit;
      }
    }

    const { span, ctx } = this.tracer.start(name, server, context.meta, client);
    const trace = this.tracer.inject(ctx, context.meta);
    // A call still running after a second gets an "initiated" line before its outcome line.
    const running = this.audit
      ? this.watchRunning(started, () =>
          this.auditLine(entry, client, args, started, 'initiated', address),
        )
      : undefined;
    try {
      const result = await this.execute(entry, input, context, trace);
      if (entry.writes) await this.invalidate(server);
      if (cacheKey && !result.isError && result.resultType === undefined) {
        this.cache!.set(cacheKey, server, result, generation);
      }
      const outcome = result.isError ? 'tool_error' : 'ok';
      this.tracer.end(span, outcome);
      this.finish(entry, client, args, started, outcome, undefined, trace.traceparent, address);
      return result;
    } catch (error) {
      // A call that failed may still have written (a timeout, a lost answer).
      if (entry.writes) await this.invalidate(server);
      const fault = this.toFault(error, entry);
      this.metrics.error(name, server, errorType(error));
      this.tracer.end(span, 'error', fault.message);
      this.finish(entry, client, args, started, 'error', fault.message, trace.traceparent, address);
      throw fault;
    } finally {
      if (running) this.running.delete(running);
    }
  }

  /**
   * Calls in flight that announce themselves once they have run for a second. One sweep every
   * 250 ms while any is in flight, rather than a timer per call: setting and clearing a timer was
   * a measurable part of a call's cost in the gateway (bench/server.bench.mjs).
   */
  private watchRunning(started: number, announce: () => void): RunningCall {
    const call: RunningCall = { started, announce };
    this.running.add(call);
    if (this.sweep === undefined) {
      this.sweep = setInterval(() => {
        const now = performance.now();
        for (const each of this.running) {
          if (now - each.started < 1000) continue;
          this.running.delete(each);
          each.announce();
        }
        if (this.running.size === 0) {
          clearInterval(this.sweep);
          this.sweep = undefined;
        }
      }, 250);
      this.sweep.unref();
    }
    return call;
  }

  /**
   * The checks of `call` without the call itself, for the passthrough relay: throws a
   * `JsonRpcFault` for a policy or rate-limit refusal, returns an `isError` result for arguments
   * that fail the schema, `undefined` when the call may go ahead.
   */
  async admit(
    name: string,
    args: unknown,
    token: AuthToken | undefined,
  ): Promise<CallToolResult | undefined> {
    const started = performance.now();
    const client = token?.client ?? 'anonymous';
    const entry = this.tools().get(name) ?? this.byCanonicalName(name);
    const refusal = entry ? this.refusal(entry, token) : this.policy.check(name, token);
    if (!entry) {
      // Not (yet) in the registry's listing: the name-based rules still hold; the upstream
      // answers for the rest (an unknown tool is its error to give).
      if (refusal) {
        throw new JsonRpcFault(POLICY_REFUSED, refusal.message, {
          policy: refusal.policy,
          tool: name,
        });
      }
      const perMinute = this.config.policy?.rateLimit?.perMinute;
      const wait =
        perMinute === undefined ? 0 : await this.rateLimiter.consume(`client:${client}`, perMinute);
      if (wait > 0) {
        throw new JsonRpcFault(
          RATE_LIMITED,
          `Call refused: rate limit exceeded for client "${client}" (policy.rateLimit.perMinute); retry after ${wait} ms`,
          {
            retryAfterMs: wait,
            policy: 'policy.rateLimit.perMinute',
            tool: name,
          },
        );
      }
      return undefined;
    }
    if (refusal) {
      this.finish(entry, client, args, started, 'refused', refusal.message);
      throw new JsonRpcFault(POLICY_REFUSED, refusal.message, {
        policy: refusal.policy,
        tool: name,
      });
    }
    await this.checkRateLimits(entry, client, args, started);
    const input = args ?? {};
    if (entry.validator) {
      const checked = entry.validator.validate(input);
      if (!checked.success) {
        this.finish(entry, client, args, started, 'refused', 'invalid arguments');
        return {
          content: [
            {
              type: 'text',
              text: `Invalid arguments for tool "${name}": ${formatIssues(checked.issues)}`,
            },
          ],
          isError: true,
        };
      }
    }
    if (!this.rules.empty) {
      const violation = await this.rules.check(
        [name, this.canonicalName(entry)],
        input,
        entry.server,
      );
      if (violation) {
        const message = `Argument ${violation.path} of tool "${name}" is refused by policy.paths: ${violation.message}`;
        this.finish(entry, client, args, started, 'refused', message);
        throw new JsonRpcFault(POLICY_REFUSED, message, {
          policy: 'policy.paths',
          tool: name,
          argument: violation.path,
        });
      }
    }
    return undefined;
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
    const entry = this.tools().get(name);
    if (entry) this.finish(entry, token?.client ?? 'anonymous', args, started, outcome, error);
  }

  /** After the passthrough relay forwarded a call: a write drops its upstream's cached reads. */
  async afterRelayedCall(name: string, server: string): Promise<void> {
    const entry = this.tools().get(name);
    if (!entry || entry.writes) await this.invalidate(server);
  }

  private async checkRateLimits(
    entry: ToolEntry,
    client: string,
    args: unknown,
    started: number,
    address?: string,
  ): Promise<void> {
    const perMinute = this.config.policy?.rateLimit?.perMinute;
    if (perMinute !== undefined) {
      const wait = await this.rateLimiter.consume(`client:${client}`, perMinute);
      if (wait > 0)
        this.rateLimited(
          entry,
          client,
          args,
          started,
          wait,
          'policy.rateLimit.perMinute',
          'client',
          address,
        );
    }
    if (entry.perToolLimit !== undefined) {
      const wait = await this.rateLimiter.consume(
        `tool:${client}:${entry.tool.name}`,
        entry.perToolLimit,
      );
      if (wait > 0)
        this.rateLimited(
          entry,
          client,
          args,
          started,
          wait,
          'policy.rateLimit.perTool',
          'tool',
          address,
        );
    }
  }

  private rateLimited(
    entry: ToolEntry,
    client: string,
    args: unknown,
    started: number,
    retryAfterMs: number,
    policy: string,
    scope: string,
    address?: string,
  ): never {
    const message = `Call refused: rate limit exceeded for ${scope === 'client' ? `client "${client}"` : `tool "${entry.tool.name}"`} (${policy}); retry after ${retryAfterMs} ms`;
    this.metrics.rateLimited.labels(scope).inc();
    this.finish(entry, client, args, started, 'refused', message, undefined, address);
    throw new JsonRpcFault(RATE_LIMITED, message, { retryAfterMs, policy, tool: entry.tool.name });
  }

  private async execute(
    entry: ToolEntry,
    args: unknown,
    context: CallContext,
    trace: Record<string, string>,
  ): Promise<CallToolResult> {
    if (entry.native) {
      return this.withTimeout(entry, context.signal, (signal) =>
        runNativeTool(entry.native!, args, {
          signal,
          toolCallId: randomUUID(),
          onProgress: context.onProgress,
          // Tools this tool calls run as its caller, as children of this call's span.
          tools: this.asCaller({
            token: context.token,
            address: context.address,
            meta: trace,
            signal,
          }),
        }),
      );
    }
    if (entry.server === NATIVE) {
      return this.viaSource(entry, args, context, trace);
    }
    const breaker = this.breaker(entry.server);
    const wait = breaker.acquire();
    if (wait > 0) {
      throw new JsonRpcFault(
        UPSTREAM_UNAVAILABLE,
        `Upstream "${entry.server}" is unavailable: circuit breaker open; retry after ${wait} ms`,
        { upstream: entry.server, retryAfterMs: wait, breaker: 'open' },
      );
    }
    const attempts = this.retry && entry.retryable ? 2 : 1;
    for (let attempt = 1; ; attempt++) {
      try {
        const http = this.httpUpstream(entry.server);
        const result = http
          ? await this.viaHttp(http, entry, args, context, trace)
          : await this.viaSource(entry, args, context, trace);
        breaker.success();
        if (http) this.markUp(entry.server);
        return result;
      } catch (error) {
        const transient = isTransient(error);
        if (error instanceof UpstreamError && error.kind === 'connection')
          this.markDown(entry.server, error.message);
        if (transient) breaker.failure();
        else if (!(error instanceof UpstreamError)) breaker.success();
        if (!transient || attempt >= attempts || context.signal?.aborted || breaker.acquire() > 0)
          throw error;
      }
    }
  }

  private async viaHttp(
    http: HttpUpstream,
    entry: ToolEntry,
    args: unknown,
    context: CallContext,
    trace: Record<string, string>,
  ): Promise<CallToolResult> {
    const meta: Record<string, unknown> = {};
    let ourToken: string | undefined;
    const downstreamToken = context.meta?.progressToken;
    if (context.meta) {
      for (const key in context.meta) {
        if (key !== 'progressToken' && !key.startsWith('io.modelcontextprotocol/'))
          meta[key] = context.meta[key];
      }
    }
    if (downstreamToken !== undefined && context.onProgress) {
      // Our own token upstream, mapped back to the client's: ids and tokens never leak across hops.
      ourToken = `tw-${++this.progressSeq}`;
      meta.progressToken = ourToken;
    }
    Object.assign(meta, trace);
    const params: Record<string, unknown> = {
      ...context.extraParams,
      name: entry.tool.originalName,
      arguments: args,
    };
    if (Object.keys(meta).length > 0) params._meta = meta;
    const result = await http.request('tools/call', params, {
      signal: context.signal,
      timeoutMs: entry.timeoutMs,
      headers: trace,
      onNotification: (message) => {
        const p = message.params;
        if (
          message.method === 'notifications/progress' &&
          isRecord(p) &&
          p.progressToken === ourToken
        ) {
          context.onProgress?.({
            progress: Number(p.progress),
            ...(typeof p.total === 'number' ? { total: p.total } : {}),
            ...(typeof p.message === 'string' ? { message: p.message } : {}),
          });
        } else context.onNotification?.(message);
      },
    });
    if (isRecord(result) && result.resultType === 'input_required') {
      // A multi-round-trip request for client input: a 2026-07-28 client answers it by calling again
      // with inputResponses (passed through above); a 2025-era session has no way to.
      if (context.modern) return result as CallToolResult;
      throw new JsonRpcFault(
        INVALID_REQUEST,
        `Tool "${entry.tool.name}" asks the client for input (2026-07-28 input_required), which a 2025-era session cannot answer; connect with protocol 2026-07-28 or through /servers/${entry.server}/mcp`,
        { upstream: entry.server, inputRequired: true },
      );
    }
    if (!isRecord(result) || !Array.isArray(result.content)) {
      throw new UpstreamError(
        entry.server,
        'protocol',
        `Upstream "${entry.server}" answered tools/call without a content array`,
      );
    }
    delete result.resultType;
    return result as CallToolResult;
  }

  private async viaSource(
    entry: ToolEntry,
    args: unknown,
    context: CallContext,
    trace: Record<string, string>,
  ): Promise<CallToolResult> {
    const meta: Record<string, unknown> = { ...trace };
    return this.source.callTool(entry.tool.name, args, {
      signal: context.signal,
      timeoutMs: entry.timeoutMs,
      onProgress: context.onProgress,
      meta,
    });
  }

  private async withTimeout<T>(
    entry: ToolEntry,
    outer: AbortSignal | undefined,
    run: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(outer?.reason);
    outer?.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(
          new UpstreamError(
            entry.server,
            'timeout',
            `Tool "${entry.tool.name}" did not finish within ${entry.timeoutMs} ms`,
          ),
        );
      }, entry.timeoutMs);
    });
    try {
      return await Promise.race([run(controller.signal), timeout]);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    }
  }

  private toFault(error: unknown, entry: ToolEntry): JsonRpcFault {
    if (error instanceof JsonRpcFault) return error;
    if (error instanceof UpstreamError) {
      if (error.kind === 'timeout') {
        return new JsonRpcFault(
          UPSTREAM_TIMEOUT,
          `Tool "${entry.tool.name}" timed out after ${entry.timeoutMs} ms (upstream "${entry.server}")`,
          {
            upstream: entry.server,
            timeoutMs: entry.timeoutMs,
          },
        );
      }
      if (error.kind === 'cancelled')
        return new JsonRpcFault(INTERNAL_ERROR, 'The call was cancelled', { cancelled: true });
      return new JsonRpcFault(UPSTREAM_UNAVAILABLE, error.message, {
        upstream: entry.server,
        reason: error.kind,
      });
    }
    if (ToolwireError.isInstance(error)) {
      if (error.code === 'server_unavailable') {
        return new JsonRpcFault(UPSTREAM_UNAVAILABLE, error.message, { upstream: entry.server });
      }
      if (error.code === 'timeout') {
        return new JsonRpcFault(UPSTREAM_TIMEOUT, error.message, {
          upstream: entry.server,
          timeoutMs: entry.timeoutMs,
        });
      }
      if (error.code === 'no_such_tool' || error.code.startsWith('tool_arguments_')) {
        return new JsonRpcFault(INVALID_PARAMS, error.message, { tool: entry.tool.name });
      }
    }
    return new JsonRpcFault(
      INTERNAL_ERROR,
      `Tool "${entry.tool.name}" failed: ${errorMessage(error)}`,
      { upstream: entry.server },
    );
  }

  private finish(
    entry: ToolEntry,
    client: string,
    args: unknown,
    started: number,
    outcome: AuditEntry['outcome'],
    error?: string,
    traceparent?: string,
    address?: string,
  ): void {
    const durationMs = performance.now() - started;
    this.metrics.call(entry.tool.name, entry.server, outcome);
    if (outcome !== 'refused') this.metrics.observe(entry.server, durationMs / 1000);
    this.auditLine(entry, client, args, started, outcome, address, error, traceparent);
  }

  private auditLine(
    entry: ToolEntry,
    client: string,
    args: unknown,
    started: number,
    outcome: AuditEntry['outcome'],
    address?: string,
    error?: string,
    traceparent?: string,
  ): void {
    if (!this.audit) return;
    const durationMs = performance.now() - started;
    const line: AuditEntry = {
      time: isoTimeNow(),
      client,
      tool: entry.tool.name,
      upstream: entry.server,
      durationMs: Math.round(durationMs * 1000) / 1000,
      outcome,
      arguments: this.auditArguments ? args : redactArguments(args),
    };
    if (address) line.address = address;
    if (error) line.error = error;
    if (traceparent) line.traceId = traceparent.split('-')[1];
    this.audit(line);
  }

  /** Waits for the stores that connect somewhere (the Redis ones); see `Forwarder.ready`. */
  async ready(timeoutMs = 5000): Promise<void> {
    const stores = [this.rateLimiter, this.cache, this.breakerStore] as Array<
      { ready?: (timeoutMs?: number) => Promise<void> } | undefined
    >;
    await Promise.all(stores.map((store) => store?.ready?.(timeoutMs)));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweep);
    this.sweep = undefined;
    await this.callerTools?.close?.();
    clearTimeout(this.probeTimer);
    this.unsubscribe();
    await Promise.all([...this.http.values()].map((upstream) => upstream.close()));
    this.http.clear();
    await this.rateLimiter.close();
    this.breakerMember.leave();
    if (this.ownsCache) await this.cache?.close?.();
    if (this.ownsBreakerStore) await this.breakerStore.close?.();
    (this.audit as { flush?: () => void } | undefined)?.flush?.();
  }
}

function isTransient(error: unknown): boolean {
  if (error instanceof UpstreamError)
    return error.kind === 'timeout' || error.kind === 'connection';
  return (
    ToolwireError.isInstance(error) &&
    (error.code === 'server_unavailable' || error.code === 'timeout')
  );
}

function errorType(error: unknown): string {
  if (error instanceof UpstreamError) return error.kind;
  if (error instanceof JsonRpcFault) return `jsonrpc_${error.code}`;
  if (ToolwireError.isInstance(error)) return error.code;
  return 'internal';
}
