import type { BreakerSnapshot } from './breaker-store.js';

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the breaker. Default 5. */
  failureThreshold?: number;
  /** How long it stays open before one probe is let through. Default 10 s. */
  openMs?: number;
}

/**
 * Per-upstream breaker: closed → open after N consecutive failures (connection loss, timeout),
 * open → half-open after `openMs`, where exactly one probe call goes through; its outcome closes
 * or re-opens the breaker. Tool-level errors (`isError` results) are not failures of the upstream.
 */
export class CircuitBreaker {
  state: BreakerState = 'closed';
  private failures = 0;
  private openedAt = 0;
  private probing = false;
  private readonly threshold: number;
  private readonly openMs: number;
  /** `origin` is `'shared'` when the transition came from `apply` (another instance's breaker). */
  onStateChange?: (state: BreakerState, origin: 'local' | 'shared') => void;

  constructor(options: CircuitBreakerOptions = {}) {
    this.threshold = options.failureThreshold ?? 5;
    this.openMs = options.openMs ?? 10_000;
  }

  /** 0 when a call may proceed, else the milliseconds until the next probe. */
  acquire(now = Date.now()): number {
    if (this.state === 'closed') return 0;
    if (this.state === 'open') {
      const wait = this.openedAt + this.openMs - now;
      if (wait > 0) return wait;
      this.transition('half-open');
    }
    if (this.probing) return Math.max(1, this.openMs);
    this.probing = true;
    return 0;
  }

  success(): void {
    this.failures = 0;
    this.probing = false;
    if (this.state !== 'closed') this.transition('closed');
  }

  failure(now = Date.now()): void {
    this.failures += 1;
    const wasProbe = this.probing;
    this.probing = false;
    if (this.state === 'half-open' || wasProbe || this.failures >= this.threshold) {
      this.openedAt = now;
      if (this.state !== 'open') this.transition('open');
    }
  }

  /** When the breaker last opened (ms since the epoch). */
  get openedSince(): number {
    return this.openedAt;
  }

  /** Takes on a state another instance's breaker for the same upstream reached. */
  apply(snapshot: BreakerSnapshot): void {
    this.probing = false;
    if (snapshot.state === 'open') {
      this.failures = Math.max(this.failures, this.threshold);
      this.openedAt = Math.max(this.openedAt, snapshot.openedAt);
      if (this.state !== 'open') this.transition('open', 'shared');
    } else {
      this.failures = 0;
      if (this.state !== 'closed') this.transition('closed', 'shared');
    }
  }

  private transition(state: BreakerState, origin: 'local' | 'shared' = 'local'): void {
    this.state = state;
    this.onStateChange?.(state, origin);
  }
}
