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
  record: Omit<CallRecord, 'outcome'>;
  /** Set once the call is announced (`initiated`), a second in. */
  id?: number;
  /** Its latest progress notification, when the caller asked for progress. */
  progress?: CallProgress;
}

/** A progress notification of a running call. */
export interface CallProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** A call that has run for more than a second and is still going, as `runningCalls()` lists it. */
export interface RunningCallView {
  callId: number;
  /** When it arrived (ISO time). */
  time: string;
  client: string;
  tool: string;
  upstream: string;
  durationMs: number;
  progress?: CallProgress;
}

/** The watch over one call in flight: its progress, and its end. */
export interface CallWatch {
  progress(progress: CallProgress): void;
  /** The call's id when it was announced (its outcome line carries it too). */
  end(): number | undefined;
}

const NO_WATCH: CallWatch = { progress: () => {}, end: () => undefined };

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
  /** Calls announced as running and not finished yet. */
  private readonly announced = new Set<RunningCall>();
  private nextId = 0;
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

  /**
   * Counts the call, observes its latency (unless refused) and writes its audit line (with the
   * `callId` it was announced under, if it ran long enough to be).
   */
  finish(record: CallRecord, callId?: number): void {
    const { entry, outcome } = record;
    this.metrics.call(entry.tool.name, entry.server, outcome);
    this.metrics.clientCall(record.caller.client, outcome);
    if (outcome !== 'refused')
      this.metrics.observe(entry.server, (performance.now() - record.started) / 1000);
    this.auditLine(record, callId);
  }

  /**
   * Announces the call with an `initiated` line once it has run for a second, and lists it in
   * `runningCalls()` from then until its end. One sweep every 250 ms while any is in flight,
   * rather than a timer per call: setting and clearing a timer was a measurable part of a call's
   * cost in the gateway (bench/server.bench.mjs).
   */
  watch(record: Omit<CallRecord, 'outcome'>): CallWatch {
    if (!this.audit) return NO_WATCH;
    const call: RunningCall = { record };
    this.running.add(call);
    this.sweep ??= this.startSweep();
    return {
      progress: (progress) => {
        call.progress = progress;
      },
      end: () => {
        this.running.delete(call);
        this.announced.delete(call);
        return call.id;
      },
    };
  }

  /** The calls running for more than a second, oldest first. */
  runningCalls(): RunningCallView[] {
    const now = performance.now();
    return [...this.announced].map((call) => {
      const { entry, caller, started } = call.record;
      return {
        callId: call.id!,
        time: new Date(Date.now() - (now - started)).toISOString(),
        client: caller.client,
        tool: entry.tool.name,
        upstream: entry.server,
        durationMs: Math.round(now - started),
        ...(call.progress ? { progress: call.progress } : {}),
      };
    });
  }

  private startSweep(): NodeJS.Timeout {
    const sweep = setInterval(() => {
      const now = performance.now();
      for (const each of this.running) {
        if (now - each.record.started < 1000) continue;
        this.running.delete(each);
        each.id = ++this.nextId;
        this.announced.add(each);
        this.auditLine({ ...each.record, outcome: 'initiated' }, each.id);
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

  private auditLine(record: CallRecord, callId: number | undefined): void {
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
    if (callId !== undefined) line.callId = callId;
    this.audit(line);
  }

  close(): void {
    clearInterval(this.sweep);
    this.sweep = undefined;
    this.running.clear();
    this.announced.clear();
    (this.audit as { flush?: () => void } | undefined)?.flush?.();
  }
}
