/**
 * What one owner may hold of a shared capacity (the runners of a sandbox pool, type-check workers,
 * a gateway's calls to its upstreams).
 */
export interface FairShareLimits {
  /** Units one owner holds at once (default: half the capacity, rounded up). */
  maxActive: number;
  /** Requests of one owner waiting for a unit (default 16); one more is refused at once. */
  maxQueued: number;
}

/** The share of every owner, and of named owners (a gateway's token client names) over it. */
export interface FairShareOptions extends Partial<FairShareLimits> {
  owners?: Readonly<Record<string, Partial<FairShareLimits>>>;
}

/** A unit of the capacity, held until `release()`. */
export interface FairShareGrant {
  /** How long the request waited for its turn, in milliseconds. */
  readonly queuedMs: number;
  release(): void;
}

/** Who holds and who waits, per owner (for tests, metrics and the dashboard). */
export interface FairShareSnapshot {
  active: Record<string, number>;
  queued: Record<string, number>;
}

interface Waiter {
  enqueuedAt: number;
  grant: (grant: FairShareGrant) => void;
  fail: (error: unknown) => void;
  cleanup: () => void;
}

interface OwnerState {
  active: number;
  queue: Waiter[];
  /** Moving average of how long this owner holds a unit, for `retryAfterMs`. */
  holdMs: number | undefined;
}

/** Why `FairShareQueue.acquire` refuses at once: the owner's queue is full. */
export interface FairShareRefusal {
  owner: string;
  active: number;
  queued: number;
  /** About when a queue slot frees, from the owner's usual hold time. */
  retryAfterMs: number;
}

export interface FairShareQueueOptions {
  /** Units in all (`Infinity`: only the per-owner limits hold). */
  capacity: number;
  share?: FairShareOptions;
  /** The error an owner whose queue is full is refused with (a rate-limit error). */
  busy: (refusal: FairShareRefusal) => Error;
  /** The error a waiting request fails with when its signal aborts or the queue closes. */
  aborted: (reason: 'cancelled' | 'closed') => Error;
  /** Checks a share before it is used (throws for a bad one). */
  check?: (share: FairShareOptions) => void;
}

const defaultMaxQueued = 16;
/** `retryAfterMs` before an owner has held anything: a typical short run. */
const unknownHoldMs = 1000;

/**
 * Shares a capacity among owners: each owner holds at most `maxActive` units and queues at most
 * `maxQueued` requests (one more is refused with the `busy` error, a rate-limit error with
 * `retryAfterMs`), and a freed unit goes to the owners with waiting requests in turn (round-robin),
 * never to whoever queued most. So one owner flooding it delays its own requests, not another
 * owner's. The executor's sandbox pool, the type checker's workers and a gateway's calls per token
 * are shared this way.
 */
export class FairShareQueue {
  private readonly owners = new Map<string, OwnerState>();
  /** Owners with waiting requests, in the order they are served. */
  private readonly ring: string[] = [];
  private active = 0;
  private closed = false;
  private settings: FairShareOptions = {};
  private readonly capacity: number;
  private readonly options: FairShareQueueOptions;

  constructor(options: FairShareQueueOptions) {
    this.options = options;
    this.capacity = options.capacity;
    this.configure(options.share ?? {});
  }

  /** Replaces the shares (e.g. after a config reload); requests already granted keep their unit. */
  configure(share: FairShareOptions): void {
    this.options.check?.(share);
    this.settings = share;
    this.pump();
  }

  /** The limits `owner` is held to (default: half the capacity, rounded up; 16 queued). */
  limitsOf(owner: string): FairShareLimits {
    const own = this.settings.owners?.[owner];
    return {
      maxActive: own?.maxActive ?? this.settings.maxActive ?? Math.ceil(this.capacity / 2),
      maxQueued: own?.maxQueued ?? this.settings.maxQueued ?? defaultMaxQueued,
    };
  }

  /**
   * A unit for `owner`: at once when the capacity and its share allow, else after the requests of
   * other owners queued before its turn. Rejects with the `busy` error when its queue is full, and
   * with the `aborted` one when `signal` aborts or the queue is closed while it waits.
   */
  acquire(owner: string, signal?: AbortSignal): Promise<FairShareGrant> {
    if (this.closed) return Promise.reject(this.options.aborted('closed'));
    if (signal?.aborted) return Promise.reject(this.options.aborted('cancelled'));
    const state = this.stateOf(owner);
    const limits = this.limitsOf(owner);
    if (state.queue.length === 0 && state.active < limits.maxActive && this.active < this.capacity)
      return Promise.resolve(this.take(owner, state, performance.now()));
    if (state.queue.length >= limits.maxQueued) {
      return Promise.reject(
        this.options.busy({
          owner,
          active: state.active,
          queued: state.queue.length,
          retryAfterMs: this.retryAfter(state, limits),
        }),
      );
    }
    return new Promise<FairShareGrant>((resolve, reject) => {
      const onAbort = (): void => {
        const index = state.queue.indexOf(waiter);
        if (index >= 0) state.queue.splice(index, 1);
        this.forget(owner, state);
        reject(this.options.aborted('cancelled'));
      };
      const waiter: Waiter = {
        enqueuedAt: performance.now(),
        grant: resolve,
        fail: reject,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      state.queue.push(waiter);
      if (!this.ring.includes(owner)) this.ring.push(owner);
    });
  }

  snapshot(): FairShareSnapshot {
    const active: Record<string, number> = {};
    const queued: Record<string, number> = {};
    for (const [owner, state] of this.owners) {
      if (state.active > 0) active[owner] = state.active;
      if (state.queue.length > 0) queued[owner] = state.queue.length;
    }
    return { active, queued };
  }

  /** Refuses every waiting request and every later one. */
  close(): void {
    this.closed = true;
    for (const state of this.owners.values()) {
      for (const waiter of state.queue.splice(0)) {
        waiter.cleanup();
        waiter.fail(this.options.aborted('closed'));
      }
    }
    this.ring.length = 0;
  }

  private stateOf(owner: string): OwnerState {
    let state = this.owners.get(owner);
    if (!state) {
      state = { active: 0, queue: [], holdMs: undefined };
      this.owners.set(owner, state);
    }
    return state;
  }

  private take(owner: string, state: OwnerState, enqueuedAt: number): FairShareGrant {
    state.active++;
    this.active++;
    const grantedAt = performance.now();
    let released = false;
    return {
      queuedMs: grantedAt - enqueuedAt,
      release: () => {
        if (released) return;
        released = true;
        state.active--;
        this.active--;
        const held = performance.now() - grantedAt;
        state.holdMs = state.holdMs === undefined ? held : state.holdMs * 0.8 + held * 0.2;
        this.forget(owner, state);
        this.pump();
      },
    };
  }

  /** Hands free units to waiting owners, one per owner per turn of the ring. */
  private pump(): void {
    let skipped = 0;
    while (this.active < this.capacity && this.ring.length > 0 && skipped < this.ring.length) {
      const owner = this.ring.shift()!;
      const state = this.stateOf(owner);
      if (state.queue.length === 0) continue;
      if (state.active >= this.limitsOf(owner).maxActive) {
        this.ring.push(owner);
        skipped++;
        continue;
      }
      skipped = 0;
      const waiter = state.queue.shift()!;
      waiter.cleanup();
      if (state.queue.length > 0) this.ring.push(owner);
      waiter.grant(this.take(owner, state, waiter.enqueuedAt));
    }
  }

  /** Drops the bookkeeping of an owner that holds and waits for nothing. */
  private forget(owner: string, state: OwnerState): void {
    if (state.active > 0 || state.queue.length > 0) return;
    const index = this.ring.indexOf(owner);
    if (index >= 0) this.ring.splice(index, 1);
    // Kept while its hold time says something about its next retry; dropped past a few thousand.
    if (this.owners.size > 4096) this.owners.delete(owner);
  }

  /** About when a queue slot frees: the owner's usual hold time per unit ahead of it. */
  private retryAfter(state: OwnerState, limits: FairShareLimits): number {
    const hold = state.holdMs ?? unknownHoldMs;
    const rounds = Math.max(1, Math.ceil(state.queue.length / Math.max(1, limits.maxActive)));
    return Math.min(60_000, Math.max(100, Math.round(hold * rounds)));
  }
}
