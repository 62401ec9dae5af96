/** A breaker transition worth sharing: half-open is each instance's own probe, so it is not shared. */
export interface BreakerSnapshot {
  state: 'open' | 'closed';
  /** When the breaker opened (ms since the epoch); the probe follows `openMs` after it. */
  openedAt: number;
}

export type BreakerListener = (server: string, snapshot: BreakerSnapshot) => void;

/** One forwarder's membership of a `BreakerStateStore`. */
export interface BreakerStateMember {
  /** Records a transition of this member's breaker; every other member hears of it. */
  publish(server: string, snapshot: BreakerSnapshot): void;
  leave(): void;
}

/**
 * Circuit-breaker state shared between forwarders. A member hears the transitions the other
 * members publish (never its own) and, on joining, the breakers that are open right now.
 */
export interface BreakerStateStore {
  join(listener: BreakerListener): BreakerStateMember;
  close?(): Promise<void>;
}

/**
 * Breaker state shared by the forwarders of one process (pass the same instance to each). A
 * forwarder without one gets its own, which shares with nobody: breakers are per upstream and
 * per forwarder.
 */
export class MemoryBreakerStateStore implements BreakerStateStore {
  private readonly members = new Set<BreakerListener>();
  private readonly states = new Map<string, BreakerSnapshot>();

  join(listener: BreakerListener): BreakerStateMember {
    this.members.add(listener);
    const open = [...this.states].filter(([, snapshot]) => snapshot.state === 'open');
    if (open.length > 0) {
      queueMicrotask(() => {
        if (!this.members.has(listener)) return;
        for (const [server, snapshot] of open) listener(server, snapshot);
      });
    }
    return {
      publish: (server, snapshot) => {
        this.states.set(server, snapshot);
        for (const member of this.members) if (member !== listener) member(server, snapshot);
      },
      leave: () => {
        this.members.delete(listener);
      },
    };
  }

  async close(): Promise<void> {
    this.members.clear();
    this.states.clear();
  }
}
