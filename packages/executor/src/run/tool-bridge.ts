// The host side of the script's tool calls for one run: the records, the maxInFlight slots, the
// abort signals the tools get, and the calls still running when the script finishes.
import { toolFailureFromError } from '@toolwire/schema';
import type { ToolErrorCategory } from '@toolwire/schema';
import type { ExecutionLimits, HostFunction, ToolCallRecord } from '../types.js';
import { safeMessage } from './check-run-options.js';

/** One call as the runner announced it. */
export interface ToolCallRequest {
  callId: number;
  name: string;
  /** The arguments as JSON; absent when the script passed none or they were over the limit. */
  args: string | undefined;
  /** Set instead of `args` when the guest found them over maxToolInputBytes: their length. */
  argsLength: number | undefined;
}

/** How the bridge talks back to its run. */
export interface ToolBridgeHost {
  /** Whether a call may still start (the run is neither stopping nor over). */
  mayStart(): boolean;
  /** Whether a reply may still be delivered to the script. */
  accepting(): boolean;
  /** Hands the result envelope of call `callId` to the script. */
  reply(callId: number, envelope: string): void;
  /** The call was one more than maxToolCalls. */
  overLimit(): void;
}

export class ToolBridge {
  readonly records: ToolCallRecord[] = [];
  private readonly controllers = new Set<AbortController>();
  private readonly tasks = new Set<Promise<void>>();
  private inFlight = 0;
  private readonly waitingForSlot: Array<() => void> = [];
  private ended = false;
  private readonly functions: Record<string, HostFunction>;
  private readonly limits: ExecutionLimits;
  private readonly host: ToolBridgeHost;

  constructor(
    functions: Record<string, HostFunction>,
    limits: ExecutionLimits,
    host: ToolBridgeHost,
  ) {
    this.functions = functions;
    this.limits = limits;
    this.host = host;
  }

  /** Calls sent to a tool whose host-side work has not settled yet. */
  get pending(): number {
    return this.tasks.size;
  }

  /** Starts one call; a failure of the bridge itself (not of the tool) goes to `onBridgeFailure`. */
  call(request: ToolCallRequest, onBridgeFailure: (error: unknown) => void): void {
    const task = this.handle(request).catch(onBridgeFailure);
    this.tasks.add(task);
    void task.finally(() => this.tasks.delete(task));
  }

  /** Resolves once every call already sent has settled (calls made meanwhile included). */
  async settled(): Promise<void> {
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
  }

  /** Records calls the script made in the turn in which it finished: never executed. */
  refuse(calls: ReadonlyArray<{ name: string; args: string | undefined }>): void {
    for (const refused of calls) {
      this.records.push({
        id: this.records.length + 1,
        name: refused.name,
        arguments: parseArguments(refused.args),
        outcome: 'cancelled',
        error: {
          category: 'cancelled',
          message:
            'Not executed: the script had already finished when it made this call. Await every tool call before returning.',
        },
        durationMs: 0,
      });
    }
  }

  /** Asks every running tool to stop (the run is stopping). */
  abortAll(reason: string): void {
    for (const controller of this.controllers) controller.abort(new Error(reason));
  }

  /**
   * The run has ended: running tools are aborted and recorded as cancelled, with how long they
   * had run.
   */
  end(reason: string): void {
    this.ended = true;
    this.abortAll(`run ended: ${reason}`);
    const now = performance.now();
    for (const record of this.records) {
      if (record.outcome === 'cancelled' && record.durationMs < 0) {
        record.durationMs = now + record.durationMs;
        record.error ??= {
          category: 'cancelled',
          message: `Still running when the run ended (${reason}); the tool was asked to stop through its abort signal and may have completed anyway.`,
        };
      }
    }
  }

  private async handle({
    callId,
    name,
    args: argsJson,
    argsLength,
  }: ToolCallRequest): Promise<void> {
    const fail = (message: string, category: ToolErrorCategory): string =>
      JSON.stringify({ ok: false, message, category });
    if (this.records.length >= this.limits.maxToolCalls) {
      this.host.overLimit();
      return;
    }
    const record: ToolCallRecord = {
      id: this.records.length + 1,
      name,
      arguments: undefined,
      outcome: 'ok',
      durationMs: 0,
    };
    this.records.push(record);
    const started = performance.now();
    const end = (
      outcome: ToolCallRecord['outcome'],
      error?: { message: string; category: ToolErrorCategory },
    ): void => {
      record.outcome = outcome;
      if (error) record.error = error;
      record.durationMs = performance.now() - started;
    };
    const reply = (envelope: string): void => {
      if (this.host.accepting()) this.host.reply(callId, envelope);
    };
    const fn = Object.hasOwn(this.functions, name) ? this.functions[name] : undefined;
    if (!fn) {
      const message = `No tool named ${JSON.stringify(name)}`;
      end('error', { message, category: 'resourceNotFound' });
      return reply(fail(message, 'resourceNotFound'));
    }
    // Over the limit: measured here, or in the guest, which then sent only the length (at most
    // the UTF-8 size, so "at least").
    const argsBytes = argsJson === undefined ? 0 : Buffer.byteLength(argsJson, 'utf8');
    if (argsLength !== undefined || argsBytes > this.limits.maxToolInputBytes) {
      const size = argsLength !== undefined ? `at least ${argsLength}` : String(argsBytes);
      const message = `The arguments of ${name} are ${size} bytes as JSON; the limit is ${this.limits.maxToolInputBytes} bytes (maxToolInputBytes). Pass less data per call.`;
      end('error', { message, category: 'invalidArguments' });
      return reply(fail(message, 'invalidArguments'));
    }
    const args: unknown = argsJson === undefined ? undefined : JSON.parse(argsJson);
    record.arguments = args;
    // A call still running when the run ends is recorded as cancelled; the negative duration
    // holds its start until `end` computes the real one.
    record.outcome = 'cancelled';
    record.durationMs = -started;
    await this.acquireSlot();
    const controller = new AbortController();
    this.controllers.add(controller);
    try {
      if (this.ended || !this.host.mayStart()) return;
      let value: unknown;
      try {
        value = await fn(args, { signal: controller.signal });
      } catch (error) {
        if (this.ended) return;
        const failure = describeToolError(error);
        end('error', failure);
        return reply(fail(failure.message, failure.category));
      }
      if (this.ended) return;
      let envelope: string;
      try {
        envelope = JSON.stringify({ ok: true, value: value ?? null });
      } catch (error) {
        const message = `Tool ${name} returned a value that is not JSON: ${safeMessage(error)}`;
        end('error', { message, category: 'unknown' });
        return reply(fail(message, 'unknown'));
      }
      const size = Buffer.byteLength(envelope, 'utf8');
      if (size > this.limits.maxToolOutputBytes + 24) {
        const message = `The result of ${name} is about ${size} bytes as JSON; the limit is ${this.limits.maxToolOutputBytes} bytes (maxToolOutputBytes). Ask the tool for less data (filters, pagination).`;
        end('error', { message, category: 'unknown' });
        return reply(fail(message, 'unknown'));
      }
      end('ok');
      reply(envelope);
    } finally {
      this.controllers.delete(controller);
      this.releaseSlot();
    }
  }

  private async acquireSlot(): Promise<void> {
    if (this.inFlight < this.limits.maxInFlight) {
      this.inFlight++;
      return;
    }
    await new Promise<void>((wake) => this.waitingForSlot.push(wake));
  }

  private releaseSlot(): void {
    const next = this.waitingForSlot.shift();
    if (next) next();
    else this.inFlight--;
  }
}

function parseArguments(json: string | undefined): unknown {
  if (json === undefined) return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

function describeToolError(error: unknown): { message: string; category: ToolErrorCategory } {
  try {
    const failure = toolFailureFromError(error);
    return { message: String(failure.message), category: failure.category };
  } catch (secondary) {
    return {
      message: `the tool threw an error that could not be read (${safeMessage(secondary)})`,
      category: 'unknown',
    };
  }
}
