import type { AuditEntry } from '@toolwire/forwarder';

export interface LoggedCall extends AuditEntry {
  /** Increases by one per call, for `?after=` polling. */
  seq: number;
}

/** The last N tool calls (from the forwarder's audit sink) plus running totals, for the dashboard. */
export class CallLog {
  // Ring buffers: a call is logged on every request, so pushing never shifts an array.
  private readonly entries: LoggedCall[] = [];
  private next = 0;
  private seq = 0;
  readonly totals = {
    calls: 0,
    ok: 0,
    toolErrors: 0,
    errors: 0,
    refused: 0,
    cached: 0,
    cancelled: 0,
  };
  private readonly recentDurations: number[] = [];
  private nextDuration = 0;

  constructor(private readonly capacity: number) {}

  push(entry: AuditEntry): void {
    const { arguments: _arguments, ...kept } = entry;
    const logged: LoggedCall = { ...kept, seq: ++this.seq };
    this.entries[this.next] = logged;
    this.next = (this.next + 1) % this.capacity;
    this.totals.calls++;
    if (entry.outcome === 'ok') this.totals.ok++;
    else if (entry.outcome === 'tool_error') this.totals.toolErrors++;
    else if (entry.outcome === 'error') this.totals.errors++;
    else if (entry.outcome === 'refused') this.totals.refused++;
    else if (entry.outcome === 'cached') this.totals.cached++;
    else if (entry.outcome === 'cancelled') this.totals.cancelled++;
    if (entry.outcome !== 'refused') {
      this.recentDurations[this.nextDuration] = entry.durationMs;
      this.nextDuration = (this.nextDuration + 1) % 1000;
    }
  }

  /** The logged calls, oldest first. */
  private ordered(): LoggedCall[] {
    return this.entries.length < this.capacity
      ? this.entries
      : [...this.entries.slice(this.next), ...this.entries.slice(0, this.next)];
  }

  /** Calls after `seq`, oldest first; only those whose tool `visible` accepts. */
  after(seq: number, visible: (tool: string) => boolean): LoggedCall[] {
    return this.ordered().filter((entry) => entry.seq > seq && visible(entry.tool));
  }

  /**
   * Totals and percentiles over the logged calls `keep` accepts: what a limited token may see of
   * the gateway's traffic (its own calls), where `totals` counts everyone's.
   */
  summary(keep: (entry: LoggedCall) => boolean): CallLog['totals'] & { p50: number; p95: number } {
    const totals = {
      calls: 0,
      ok: 0,
      toolErrors: 0,
      errors: 0,
      refused: 0,
      cached: 0,
      cancelled: 0,
    };
    const durations: number[] = [];
    for (const entry of this.ordered()) {
      if (!keep(entry)) continue;
      totals.calls++;
      if (entry.outcome === 'ok') totals.ok++;
      else if (entry.outcome === 'tool_error') totals.toolErrors++;
      else if (entry.outcome === 'error') totals.errors++;
      else if (entry.outcome === 'refused') totals.refused++;
      else if (entry.outcome === 'cached') totals.cached++;
      else if (entry.outcome === 'cancelled') totals.cancelled++;
      if (entry.outcome !== 'refused') durations.push(entry.durationMs);
    }
    return { ...totals, ...this.percentiles(durations) };
  }

  /** p50 and p95 of the recent call durations (or of `durations`), in ms. */
  percentiles(durations: readonly number[] = this.recentDurations): { p50: number; p95: number } {
    if (durations.length === 0) return { p50: 0, p95: 0 };
    const sorted = [...durations].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    return { p50: Math.round(at(0.5) * 10) / 10, p95: Math.round(at(0.95) * 10) / 10 };
  }
}
