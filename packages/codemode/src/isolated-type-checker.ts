import { Worker } from 'node:worker_threads';
import { defaultLimits, sourceTooLarge } from '@toolwire/executor';
import type { CodeDiagnostic, TypeCheckerOptions } from './type-checker.js';

/** A check sent to the worker (type-check-worker.ts). */
export type TypeCheckRequest = {
  id: number;
  body: string;
  /** Omitted when unchanged since this worker's previous check. */
  declarations?: string;
  prelude?: string;
};

export type TypeCheckReply =
  | { type: 'ready' }
  | { type: 'checked'; id: number; diagnostics: CodeDiagnostic[] }
  | { type: 'failed'; id: number; message: string };

export interface IsolatedTypeCheckerOptions extends TypeCheckerOptions {
  /** Longest one check may take; the worker is then stopped and replaced (default 5000 ms). */
  timeoutMs?: number;
  /** Heap limit of the checker's worker thread, in MB (default 384). */
  memoryMb?: number;
  /** How long an idle worker is kept before it is stopped (default 60 s). */
  idleMs?: number;
}

export interface TypeCheckRunOptions {
  /** Scripts larger than this (UTF-8 bytes) are not checked (default: the executor's limit). */
  maxSourceBytes?: number;
}

interface Job {
  request: Omit<TypeCheckRequest, 'id'>;
  resolve: (diagnostics: CodeDiagnostic[]) => void;
}

interface CheckerWorker {
  worker: Worker;
  ready: Promise<void>;
  declarations: string | undefined;
  prelude: string | undefined;
}

/**
 * The TypeScript checker of `CodeTypeChecker`, run in a worker thread: a script whose types take
 * long or much memory to check (a type-level bomb) never stalls the host's event loop. Each check
 * has a time limit and the worker a heap limit; a check that exceeds either ends the worker and
 * comes back as one diagnostic saying so (code 0), and the next check gets a fresh worker.
 * Checks run one at a time, in order.
 */
export class IsolatedTypeChecker {
  private readonly options: Required<Omit<IsolatedTypeCheckerOptions, keyof TypeCheckerOptions>> & {
    checker: TypeCheckerOptions;
  };
  private current: CheckerWorker | undefined;
  private readonly queue: Job[] = [];
  private busy = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private nextId = 1;

  constructor(options: IsolatedTypeCheckerOptions = {}) {
    const { timeoutMs = 5000, memoryMb = 384, idleMs = 60_000, ...checker } = options;
    this.options = { timeoutMs, memoryMb, idleMs, checker };
  }

  /** Like `CodeTypeChecker.check`, off the main thread and within the limits. */
  check(
    body: string,
    declarations: string,
    prelude = '',
    runOptions: TypeCheckRunOptions = {},
  ): Promise<CodeDiagnostic[]> {
    const tooLarge = sourceTooLarge(
      body,
      runOptions.maxSourceBytes ?? defaultLimits.maxSourceBytes,
    );
    if (tooLarge) return Promise.resolve([limitDiagnostic(tooLarge.message)]);
    return new Promise((resolve) => {
      this.queue.push({ request: { body, declarations, prelude }, resolve });
      this.pump();
    });
  }

  /** Starts the worker (TypeScript and its lib files loaded) before the first check needs it. */
  warmUp(): void {
    this.worker();
    this.scheduleIdle();
  }

  /** Stops the worker; checks still queued resolve as stopped. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    for (const job of this.queue.splice(0))
      job.resolve([limitDiagnostic('The type checker was closed before this check ran.')]);
    const current = this.current;
    this.current = undefined;
    await current?.worker.terminate();
  }

  private worker(): CheckerWorker {
    if (this.current) return this.current;
    const fromSource = import.meta.url.endsWith('.ts');
    const worker = new Worker(
      new URL(`./type-check-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url),
      {
        // The host's flags (test loaders, inspectors) are of no use here; Node strips the types
        // of the .ts entry by itself.
        execArgv: [],
        workerData: this.options.checker,
        resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb },
        stdout: false,
        stderr: false,
      },
    );
    worker.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const onMessage = (message: TypeCheckReply): void => {
        if (message.type !== 'ready') return;
        worker.off('message', onMessage);
        resolve();
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the type-check worker exited (${code})`)));
    });
    // Unobserved until a check waits on it.
    ready.catch(() => {});
    const created: CheckerWorker = { worker, ready, declarations: undefined, prelude: undefined };
    worker.once('exit', () => {
      if (this.current === created) this.current = undefined;
    });
    this.current = created;
    return created;
  }

  private pump(): void {
    if (this.busy) return;
    const job = this.queue.shift();
    if (!job) return this.scheduleIdle();
    clearTimeout(this.idleTimer);
    this.busy = true;
    void this.run(job).then((diagnostics) => {
      this.busy = false;
      job.resolve(diagnostics);
      this.pump();
    });
  }

  private async run(job: Job): Promise<CodeDiagnostic[]> {
    const current = this.worker();
    try {
      await current.ready;
    } catch (error) {
      return [
        limitDiagnostic(
          `The type checker could not start (${error instanceof Error ? error.message : String(error)}).`,
        ),
      ];
    }
    const { worker } = current;
    const id = this.nextId++;
    const request: TypeCheckRequest = { id, body: job.request.body };
    if (current.declarations !== job.request.declarations) {
      request.declarations = job.request.declarations;
      current.declarations = job.request.declarations;
    }
    if (current.prelude !== job.request.prelude) {
      request.prelude = job.request.prelude;
      current.prelude = job.request.prelude;
    }
    worker.ref();
    try {
      return await new Promise<CodeDiagnostic[]>((resolve) => {
        const finish = (diagnostics: CodeDiagnostic[], retire: boolean): void => {
          clearTimeout(timer);
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
          if (retire) this.retire(current);
          resolve(diagnostics);
        };
        const onMessage = (message: TypeCheckReply): void => {
          if (message.type === 'checked' && message.id === id) finish(message.diagnostics, false);
          else if (message.type === 'failed' && message.id === id)
            finish([limitDiagnostic(`The type checker failed: ${message.message}`)], true);
        };
        const onError = (error: Error): void => {
          const outOfMemory =
            (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY' ||
            /out of memory/i.test(error.message);
          finish(
            [
              limitDiagnostic(
                outOfMemory
                  ? `Type checking needed more than ${this.options.memoryMb} MB and was stopped: the script's types are too large to check (deeply recursive or exploding type-level code). Simplify the types, or run without type checking.`
                  : `The type checker failed: ${error.message}`,
              ),
            ],
            true,
          );
        };
        const onExit = (code: number): void => {
          finish([limitDiagnostic(`The type checker exited unexpectedly (${code}).`)], true);
        };
        const timer = setTimeout(() => {
          finish(
            [
              limitDiagnostic(
                `Type checking took longer than ${this.options.timeoutMs} ms and was stopped: the script's types are too complex to check (deeply recursive or exploding type-level code). Simplify the types, or run without type checking.`,
              ),
            ],
            true,
          );
        }, this.options.timeoutMs);
        worker.on('message', onMessage);
        worker.once('error', onError);
        worker.once('exit', onExit);
        worker.postMessage(request);
      });
    } finally {
      worker.unref();
    }
  }

  private retire(current: CheckerWorker): void {
    if (this.current === current) this.current = undefined;
    void current.worker.terminate();
  }

  private scheduleIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.busy || this.queue.length > 0) return;
      const current = this.current;
      this.current = undefined;
      void current?.worker.terminate();
    }, this.options.idleMs);
    this.idleTimer.unref();
  }
}

/** A diagnostic about the checker's own limits, not about a line of the script (code 0). */
function limitDiagnostic(message: string): CodeDiagnostic {
  return { line: 1, column: 1, code: 0, origin: 'script', message };
}

let shared: IsolatedTypeChecker | undefined;

/**
 * The process-wide checker code modes use: one worker with the lib files parsed once, shared by
 * every code mode (a gateway makes one per request).
 */
export function sharedTypeChecker(): IsolatedTypeChecker {
  return (shared ??= new IsolatedTypeChecker());
}
