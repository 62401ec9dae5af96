import { CircuitBreaker, type CircuitBreakerOptions } from '../circuit-breaker.js';
import type { BreakerStateMember, BreakerStateStore } from '../breaker-store.js';
import { UpstreamError, type HttpUpstream } from '../http-upstream.js';
import type { ForwarderMetrics } from '../metrics.js';
import type { ToolSource } from '../tool-source.js';
import type { HttpUpstreams } from './http-upstreams.js';

/** What the calls and probes of this process last saw of an HTTP upstream. */
interface Liveness {
  down: boolean;
  reason?: string;
  /** When a call or probe last went to it (ms since the epoch). */
  lastUsed: number;
}

const BREAKER_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;

export interface UpstreamHealthOptions {
  source: ToolSource;
  http: HttpUpstreams;
  metrics: ForwarderMetrics;
  breaker?: CircuitBreakerOptions;
  /** Where breaker transitions are shared with other forwarders. */
  breakerStore: BreakerStateStore;
  /**
   * How often an idle streamable-HTTP upstream is pinged, in ms, each wait jittered by ±25%
   * (default 2000; 0 turns probes off). An upstream that answered a call within the interval is
   * not probed.
   */
  probeIntervalMs?: number;
}

/**
 * What this process knows of each upstream's health beyond the source's own status: calls and
 * probes that found it unreachable (`markDown`) or answering (`markUp`), and its circuit breaker
 * (shared through the breaker store).
 */
export class UpstreamHealthMonitor {
  private readonly liveness = new Map<string, Liveness>();
  private readonly breakers = new Map<string, CircuitBreaker>();
  private readonly member: BreakerStateMember;
  private readonly probeIntervalMs: number;
  private probeTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: UpstreamHealthOptions) {
    this.member = options.breakerStore.join((server, snapshot) => {
      // Another config's upstream (an older deployment writing to the same Redis) is not ours.
      if (!this.breakers.has(server) && !options.source.servers().some((s) => s.name === server))
        return;
      this.breaker(server).apply(snapshot);
    });
    this.probeIntervalMs = options.probeIntervalMs ?? 2000;
    if (this.probeIntervalMs > 0) this.scheduleProbe();
  }

  breaker(server: string): CircuitBreaker {
    let breaker = this.breakers.get(server);
    if (!breaker) {
      breaker = new CircuitBreaker(this.options.breaker);
      const gauge = this.options.metrics.breakerState.labels(server);
      gauge.set(0);
      const created = breaker;
      breaker.onStateChange = (state, origin) => {
        gauge.set(BREAKER_VALUE[state]);
        if (origin === 'local' && state !== 'half-open') {
          this.member.publish(server, { state, openedAt: created.openedSince });
        }
      };
      this.breakers.set(server, breaker);
    }
    return breaker;
  }

  markUp(server: string): void {
    this.liveness.set(server, { down: false, lastUsed: Date.now() });
  }

  markDown(server: string, reason: string): void {
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

  /** Pings every HTTP upstream that no call reached lately (and every one marked down). */
  async probeIdle(): Promise<void> {
    const now = Date.now();
    const probes: Array<Promise<void>> = [];
    for (const server of this.options.source.servers()) {
      if (server.status === 'disabled') continue;
      const http = this.options.http.get(server.name);
      if (!http) continue;
      const live = this.liveness.get(server.name);
      if (live && !live.down && now - live.lastUsed < this.probeIntervalMs) continue;
      probes.push(this.probe(server.name, http, server.status));
    }
    await Promise.all(probes);
  }

  private scheduleProbe(): void {
    if (this.closed) return;
    const wait = this.probeIntervalMs * (0.75 + Math.random() * 0.5);
    this.probeTimer = setTimeout(() => {
      void this.probeIdle().finally(() => this.scheduleProbe());
    }, wait);
    this.probeTimer.unref();
  }

  private async probe(server: string, http: HttpUpstream, status: string): Promise<void> {
    try {
      // 2026-07-28 removed ping; server/discover is its cheap equivalent.
      await http.connect();
      await http.request(
        http.modern ? 'server/discover' : 'ping',
        {},
        {
          timeoutMs: Math.min(this.probeIntervalMs || 2000, 2000),
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
    if (status === 'down') await this.options.source.connect?.(server).catch(() => undefined);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.probeTimer);
    this.member.leave();
  }
}
