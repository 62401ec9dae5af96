import { Counter, Gauge, Histogram, Registry } from 'prom-client';

type Child<T> = { get(key: string): T | undefined; set(key: string, value: T): void };

/**
 * The forwarder's Prometheus metrics, on a registry of its own (so several forwarders in one
 * process do not collide). Label children are memoised: the hot path does no label hashing.
 */
export class ForwarderMetrics {
  readonly registry = new Registry();
  private readonly calls: Counter<'tool' | 'upstream' | 'outcome'>;
  private readonly errors: Counter<'tool' | 'upstream' | 'type'>;
  private readonly latency: Histogram<'upstream'>;
  private readonly cacheHits: Counter<'tool'>;
  private readonly cacheMisses: Counter<'tool'>;
  readonly breakerState: Gauge<'upstream'>;
  readonly upstreamUp: Gauge<'upstream'>;
  readonly upstreamConnected: Gauge<'upstream'>;
  readonly toolsHidden: Gauge<'reason'>;
  readonly rateLimited: Counter<'scope'>;
  private readonly serverRequests: Counter<'upstream' | 'method' | 'outcome'>;
  private readonly tasks: Counter<'upstream' | 'event'>;
  private readonly clientCalls: Counter<'client' | 'outcome'>;
  private readonly clientChildren: Child<{ inc(): void }> = new Map();
  private readonly clientsSeen = new Set<string>();
  private readonly callChildren: Child<{ inc(): void }> = new Map();
  private readonly latencyChildren: Child<{ observe(v: number): void }> = new Map();
  private readonly hitChildren: Child<{ inc(): void }> = new Map();
  private readonly missChildren: Child<{ inc(): void }> = new Map();

  constructor(prefix = 'toolwire_forwarder_') {
    const registers = [this.registry];
    this.calls = new Counter({
      name: `${prefix}calls_total`,
      help: 'Tool calls handled, by outcome (ok, tool_error, error, refused, cached, cancelled).',
      labelNames: ['tool', 'upstream', 'outcome'],
      registers,
    });
    this.errors = new Counter({
      name: `${prefix}errors_total`,
      help: 'Failed tool calls by error type.',
      labelNames: ['tool', 'upstream', 'type'],
      registers,
    });
    this.latency = new Histogram({
      name: `${prefix}call_duration_seconds`,
      help: 'Tool call latency inside the forwarder, including the upstream hop.',
      labelNames: ['upstream'],
      buckets: [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
        10, 30,
      ],
      registers,
    });
    this.serverRequests = new Counter({
      name: `${prefix}server_requests_total`,
      help: 'Server-to-client requests (sampling, elicitation, roots) upstreams sent clients through the gateway, by outcome.',
      labelNames: ['upstream', 'method', 'outcome'],
      registers,
    });
    this.tasks = new Counter({
      name: `${prefix}tasks_total`,
      help: 'Task events through the gateway (created, get, result, cancel, update, failed).',
      labelNames: ['upstream', 'event'],
      registers,
    });
    this.cacheHits = new Counter({
      name: `${prefix}cache_hits_total`,
      help: 'Tool calls answered from the result cache.',
      labelNames: ['tool'],
      registers,
    });
    this.cacheMisses = new Counter({
      name: `${prefix}cache_misses_total`,
      help: 'Cacheable tool calls that missed the result cache.',
      labelNames: ['tool'],
      registers,
    });
    this.breakerState = new Gauge({
      name: `${prefix}circuit_breaker_state`,
      help: 'Circuit breaker state per upstream: 0 closed, 1 half-open, 2 open.',
      labelNames: ['upstream'],
      registers,
    });
    this.upstreamUp = new Gauge({
      name: `${prefix}upstream_up`,
      help: 'Per-upstream health as the registry reports it: 1 ok or idle (lazy, not connected yet), 0.5 stale or connecting, 0 down.',
      labelNames: ['upstream'],
      registers,
    });
    this.upstreamConnected = new Gauge({
      name: `${prefix}upstream_connected`,
      help: 'Per-upstream connection: 1 connected (ok), 0 otherwise (idle, stale, connecting, down).',
      labelNames: ['upstream'],
      registers,
    });
    this.toolsHidden = new Gauge({
      name: `${prefix}tools_hidden`,
      help: 'Tools currently not listed, by reason (policy, unavailable).',
      labelNames: ['reason'],
      registers,
    });
    this.rateLimited = new Counter({
      name: `${prefix}rate_limited_total`,
      help: 'Calls refused by a rate limit, by scope (client, tool; calls: the concurrent calls of a client).',
      labelNames: ['scope'],
      registers,
    });
    this.clientCalls = new Counter({
      name: `${prefix}client_calls_total`,
      help: `Tool calls by client (a static token's name or an access token's subject) and outcome; past ${MAX_CLIENT_LABELS} clients the rest count as "${OTHER_CLIENTS}".`,
      labelNames: ['client', 'outcome'],
      registers,
    });
  }

  /** Counts a call for its client; label values stay bounded however many subjects call. */
  clientCall(client: string, outcome: string): void {
    if (!this.clientsSeen.has(client)) {
      if (this.clientsSeen.size >= MAX_CLIENT_LABELS) client = OTHER_CLIENTS;
      else this.clientsSeen.add(client);
    }
    const key = `${client}\u0000${outcome}`;
    let child = this.clientChildren.get(key);
    if (!child) {
      child = this.clientCalls.labels(client, outcome);
      this.clientChildren.set(key, child);
    }
    child.inc();
  }

  call(tool: string, upstream: string, outcome: string): void {
    const key = `${tool}\u0000${upstream}\u0000${outcome}`;
    let child = this.callChildren.get(key);
    if (!child) {
      child = this.calls.labels(tool, upstream, outcome);
      this.callChildren.set(key, child);
    }
    child.inc();
  }

  error(tool: string, upstream: string, type: string): void {
    this.errors.labels(tool, upstream, type).inc();
  }

  observe(upstream: string, seconds: number): void {
    let child = this.latencyChildren.get(upstream);
    if (!child) {
      child = this.latency.labels(upstream);
      this.latencyChildren.set(upstream, child);
    }
    child.observe(seconds);
  }

  cache(tool: string, hit: boolean): void {
    const children = hit ? this.hitChildren : this.missChildren;
    let child = children.get(tool);
    if (!child) {
      child = (hit ? this.cacheHits : this.cacheMisses).labels(tool);
      children.set(tool, child);
    }
    child.inc();
  }

  async text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  serverRequest(upstream: string, method: string, outcome: string): void {
    this.serverRequests.labels(upstream, method, outcome).inc();
  }

  task(upstream: string, event: string): void {
    this.tasks.labels(upstream, event).inc();
  }
}

/** How many clients get a label of their own in `client_calls_total`. */
const MAX_CLIENT_LABELS = 1_000;
const OTHER_CLIENTS = '(other)';

/**
 * Prometheus text limited to a client's scope: samples labelled with a `tool` it may not call,
 * an `upstream` it does not reach or another `client` are dropped, as are the policy-wide hidden-tool counts.
 */
export function filterMetrics(
  text: string,
  scope: { tools: ReadonlySet<string>; servers: ReadonlySet<string>; client?: string },
): string {
  return text
    .split('\n')
    .filter((line) => {
      if (line.startsWith('#') || line === '') return true;
      if (line.includes('tools_hidden')) return false;
      const open = line.indexOf('{');
      if (open < 0) return true;
      for (const [, label, raw] of line
        .slice(open, line.lastIndexOf('}') + 1)
        .matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
        const value = raw!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
        if (label === 'tool' && !scope.tools.has(value)) return false;
        if (label === 'upstream' && !scope.servers.has(value)) return false;
        if (label === 'client' && value !== scope.client) return false;
      }
      return true;
    })
    .join('\n');
}
