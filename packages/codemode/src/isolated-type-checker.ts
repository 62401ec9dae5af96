import { FairShare, defaultLimits, sourceTooLarge } from '@toolwire/executor';
import type { FairShareOptions, FairShareSnapshot } from '@toolwire/executor';
import { limitDiagnostic } from './code-diagnostic.js';
import type { CodeDiagnostic, TypeCheckerOptions } from './code-diagnostic.js';
import { CheckerWorker } from './checker-worker.js';

export interface IsolatedTypeCheckerOptions extends TypeCheckerOptions {
  /** Longest one check may take, counted from when it starts; the worker is then replaced (default 5000 ms). */
  timeoutMs?: number;
  /** Heap limit of each checker worker thread, in MB (default 384). */
  memoryMb?: number;
  /** How long an idle worker is kept before it is stopped (default 60 s). */
  idleMs?: number;
  /** Worker threads checking at once (default 2); the second starts only when two checks overlap. */
  workers?: number;
  /**
   * How checks of different owners share the workers: by default an owner checks on at most half
   * of them (rounded up) and queues at most 16 checks; one more is refused with `SandboxBusyError`.
   */
  fairShare?: FairShareOptions;
}

export interface TypeCheckRunOptions {
  /** Scripts larger than this (UTF-8 bytes) are not checked (default: the executor's limit). */
  maxSourceBytes?: number;
  /** Whose check this is (a gateway token's client name); owners take turns. */
  owner?: string;
  /** Gives up waiting for a worker (rejects with `WaitAbortedError`). */
  signal?: AbortSignal;
}

/** A check's diagnostics and where its time went. */
export interface TypeCheckOutcome {
  diagnostics: CodeDiagnostic[];
  /** Waiting for the owner's turn and a free worker (not counted against `timeoutMs`). */
  queuedMs: number;
  /** The check itself, from when a worker took it (a cold worker's start included). */
  checkMs: number;
}

/**
 * The TypeScript checker of `CodeTypeChecker`, run in worker threads: a script whose types take
 * long or much memory to check (a type-level bomb) never stalls the host's event loop. Each check
 * has a time limit from when it starts and each worker a heap limit; a check that exceeds either
 * ends its worker and comes back as one diagnostic saying so (code 0), and the next check gets a
 * fresh worker. Owners (`check(…, { owner })`) share the workers fairly: one owner's type bombs
 * hold at most its share of them, and waiting checks are served one owner at a time, in turn.
 */
export class IsolatedTypeChecker {
  private readonly limits: { timeoutMs: number; memoryMb: number; idleMs: number };
  /** The first this-many slots keep their workers when idle (`warmUp` with `keep`). */
  private kept = 0;
  private readonly checker: TypeCheckerOptions;
  private readonly slots: Array<{
    worker: CheckerWorker | undefined;
    busy: boolean;
    idle?: NodeJS.Timeout;
    /** Whose check the slot ran last. */
    owner?: string;
  }>;
  private readonly share: FairShare;

  constructor(options: IsolatedTypeCheckerOptions = {}) {
    const {
      timeoutMs = 5000,
      memoryMb = 384,
      idleMs = 60_000,
      workers = 2,
      fairShare,
      ...checker
    } = options;
    this.limits = { timeoutMs, memoryMb, idleMs };
    this.checker = checker;
    this.slots = Array.from({ length: workers }, () => ({ worker: undefined, busy: false }));
    this.share = new FairShare({ capacity: workers, resource: 'type checks', share: fairShare });
  }

  /** Like `CodeTypeChecker.check`, off the main thread and within the limits. */
  async check(
    body: string,
    declarations: string,
    prelude = '',
    runOptions: TypeCheckRunOptions = {},
  ): Promise<CodeDiagnostic[]> {
    return (await this.checkTimed(body, declarations, prelude, runOptions)).diagnostics;
  }

  /**
   * `check`, with the time spent waiting and checking apart. Rejects with `SandboxBusyError` when
   * the owner already has as many checks waiting as its share allows.
   */
  async checkTimed(
    body: string,
    declarations: string,
    prelude = '',
    runOptions: TypeCheckRunOptions = {},
  ): Promise<TypeCheckOutcome> {
    const tooLarge = sourceTooLarge(
      body,
      runOptions.maxSourceBytes ?? defaultLimits.maxSourceBytes,
    );
    if (tooLarge)
      return { diagnostics: [limitDiagnostic(tooLarge.message)], queuedMs: 0, checkMs: 0 };
    const owner = runOptions.owner ?? '';
    const grant = await this.share.acquire(owner, runOptions.signal);
    const slot = this.pickSlot(owner, declarations);
    slot.owner = owner;
    const started = performance.now();
    try {
      slot.busy = true;
      clearTimeout(slot.idle);
      if (!slot.worker || slot.worker.retired) slot.worker = this.spawn(slot);
      const diagnostics = await slot.worker.check({ body, declarations, prelude });
      return { diagnostics, queuedMs: grant.queuedMs, checkMs: performance.now() - started };
    } finally {
      // A worker that hit a limit is gone: the next check on this slot starts a fresh one.
      if (slot.worker?.retired) slot.worker = undefined;
      slot.busy = false;
      this.scheduleIdle(slot);
      grant.release();
    }
  }

  /**
   * Starts `count` workers (TypeScript and its lib files loaded) before checks need them. With
   * `keep`, those workers are not stopped when idle (a gateway serving code mode keeps its first
   * check fast whenever it comes); a worker that hit a limit is still replaced at the next check.
   */
  warmUp(count = 1, options: { keep?: boolean } = {}): void {
    if (options.keep) this.kept = Math.max(this.kept, Math.min(count, this.slots.length));
    for (const slot of this.slots.slice(0, count)) {
      if (!slot.worker || slot.worker.retired) slot.worker = this.spawn(slot);
      this.scheduleIdle(slot);
    }
  }

  /** Resolves once the workers started so far have loaded TypeScript (or failed to). */
  async ready(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.worker?.started()));
  }

  /** Checks holding a worker and checks waiting for one, per owner. */
  usage(): FairShareSnapshot {
    return this.share.snapshot();
  }

  /** Changes how owners share the workers (a config reload). */
  setFairShare(share: FairShareOptions): void {
    this.share.configure(share);
  }

  /** Stops the workers; checks still waiting are refused. */
  async close(): Promise<void> {
    this.share.close();
    for (const slot of this.slots) {
      clearTimeout(slot.idle);
      slot.worker?.retire();
      slot.worker = undefined;
    }
  }

  /**
   * A free slot: the one this owner used last (so an owner whose checks kill their worker, type
   * bombs, restarts its own and not another owner's warm one), else a started worker that holds
   * these declarations, else any started worker, else a new one.
   */
  private pickSlot(owner: string, declarations: string) {
    const free = this.slots.filter((slot) => !slot.busy);
    const alive = free.filter((slot) => slot.worker && !slot.worker.retired);
    return (
      free.find((slot) => slot.owner === owner) ??
      alive.find((slot) => slot.worker!.declarations === declarations) ??
      alive[0] ??
      free[0]!
    );
  }

  private spawn(slot: (typeof this.slots)[number]): CheckerWorker {
    const worker = new CheckerWorker(this.checker, this.limits, () => {
      if (slot.worker === worker) slot.worker = undefined;
    });
    return worker;
  }

  private scheduleIdle(slot: (typeof this.slots)[number]): void {
    clearTimeout(slot.idle);
    if (this.slots.indexOf(slot) < this.kept) return;
    slot.idle = setTimeout(() => {
      if (slot.busy) return;
      slot.worker?.retire();
      slot.worker = undefined;
    }, this.limits.idleMs);
    slot.idle.unref();
  }
}

let shared: IsolatedTypeChecker | undefined;

/**
 * The process-wide checker code modes use: workers with the lib files parsed once, shared by every
 * code mode (a gateway makes one per request or per token).
 */
export function sharedTypeChecker(): IsolatedTypeChecker {
  return (shared ??= new IsolatedTypeChecker());
}
