import {
  createJsonLinesAuditSink,
  isoTimeNow,
  redactArguments,
  type AuditEntry,
  type AuditSink,
} from '../audit-log.js';
import type { ForwarderMetrics } from '../metrics.js';
import type { Caller } from './call-context.js';
import type { ToolEntry } from './tool-index.js';

/** What is recorded of one call once its outcome is known (or, for `initiated`, while it runs). */
export interface CallRecord {
  entry: ToolEntry;
  caller: Caller;
  args: unknown;
  /** `performance.now()` when the call arrived. */
  started: number;
  outcome: AuditEntry['outcome'];
  error?: string;
  traceparent?: string;
}

export interface CallRecorderOptions {
  metrics: ForwarderMetrics;
  /** Default JSON lines on stderr; `false` turns auditing off. */
  audit?: AuditSink | false;
  /** Log arguments verbatim (default false: redacted to their types). */
  auditArguments?: boolean;
}

interface RunningCall {
  started: number;
  announce: () => void;
}

/**
 * The end of every call: its metrics and its audit line. A call still running after a second gets
 * an `initiated` line before its outcome line.
 */
export class CallRecorder {
  private readonly metrics: ForwarderMetrics;
  private readonly audit: AuditSink | undefined;
  private readonly auditArguments: boolean;
  /** Calls in flight not yet announced as running, and the sweep over them. */
  private readonly running = new Set<RunningCall>();
  private sweep: NodeJS.Timeout | undefined;

  constructor(options: CallRecorderOptions) {
    this.metrics = options.metrics;
    this.audit =
      options.audit === false
        ? undefined
        : (options.audit ?? createJsonLinesAuditSink(process.stderr));
    this.auditArguments = options.auditArguments ?? false;
  }

  /** Writes an audit line that is not a call's (server-to-client requests, tasks). */
  line(entry: Omit<AuditEntry, 'time'>): void {
    this.audit?.({ time: isoTimeNow(), ...entry });
  }

  /** Counts the call, observes its latency (unless refused) and writes its audit line. */
  finish(record: CallRecord): void {
    const { entry, outcome } = record;
    this.metrics.call(entry.tool.name, entry.server, outcome);
    this.metrics.clientCall(record.caller.client, outcome);
    if (outcome !== 'refused')
      this.metrics.observe(entry.server, (performance.now() - record.started) / 1000);
    this.auditLine(record);
  }

  /**
   * Announces the call with an `initiated` line once it has run for a second; the returned
   * function ends the watch. One sweep every 250 ms while any is in flight, rather than a timer per
   * call: setting and clearing a timer was a measurable part of a call's cost in the gateway
   * (bench/server.bench.mjs).
   */
  watch(record: Omit<CallRecord, 'outcome'>): () => void {
    if (!this.audit) return () => {};
    const call: RunningCall = {
      started: record.started,
      announce: () => this.auditLine({ ...record, outcome: 'initiated' }),
    };
    this.running.add(call);
    this.sweep ??= this.startSweep();
    return () => this.running.delete(call);
  }

  private startSweep(): NodeJS.Timeout {
    const sweep = setInterval(() => {
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
    sweep.unref();
    return sweep;
  }

  /** The audit line of a refusal that is not a tool call (a prompt, an upstream's resources). */
  refusal(subject: string, server: string, caller: Caller, error: string): void {
    if (!this.audit) return;
    const line: AuditEntry = {
      time: isoTimeNow(),
      client: caller.client,
      tool: subject,
      upstream: server,
      durationMs: 0,
      outcome: 'refused',
      error,
    };
    if (caller.address) line.address = caller.address;
    this.audit(line);
  }

  private auditLine(record: CallRecord): void {
    if (!this.audit) return;
    const { entry, caller, args } = record;
    const durationMs = performance.now() - record.started;
    const line: AuditEntry = {
      time: isoTimeNow(),
      client: caller.client,
      tool: entry.tool.name,
      upstream: entry.server,
      durationMs: Math.round(durationMs * 1000) / 1000,
      outcome: record.outcome,
      arguments: this.auditArguments ? args : redactArguments(args),
    };
    if (caller.address) line.address = caller.address;
    if (record.error) line.error = record.error;
    if (record.traceparent) line.traceId = record.traceparent.split('-')[1];
    this.audit(line);
  }

  close(): void {
    clearInterval(this.sweep);
    this.sweep = undefined;
    this.running.clear();
    (this.audit as { flush?: () => void } | undefined)?.flush?.();
  }
}
