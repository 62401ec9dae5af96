// One type-check worker thread, as the host sees it: started, ready (TypeScript loaded and its lib
// files parsed), running one check at a time within a time and heap limit, and retired.
import { Worker } from 'node:worker_threads';
import { lowerThreadPriority, restoreThreadPriority } from '@toolwire/executor';
import { ToolwireError } from '@toolwire/schema';
import { limitDiagnostic } from './code-diagnostic.js';
import type { CodeDiagnostic, TypeCheckerOptions } from './code-diagnostic.js';

/** A check sent to the worker (type-check-worker.ts). */
export type TypeCheckRequest = {
  id: number;
  body: string;
  /** Omitted when unchanged since this worker's previous check. */
  declarations?: string;
  prelude?: string;
};

export type TypeCheckReply =
  /** `threadId`: the worker's thread as the kernel knows it (Linux), for its priority. */
  | { type: 'ready'; threadId?: number }
  /** The worker cannot load the compiler (`typescript` is not installed). */
  | { type: 'unavailable'; message: string }
  | { type: 'checked'; id: number; diagnostics: CodeDiagnostic[] }
  | { type: 'failed'; id: number; message: string };

export interface CheckerWorkerLimits {
  timeoutMs: number;
  memoryMb: number;
}

let nextId = 1;
/**
 * A check still running after this long gives way: its thread's priority is lowered until it ends
 * (a worker whose priority cannot be raised again is retired), so one owner's type bombs do not
 * slow other owners' quick checks on the other worker of a small machine. Later than a run's
 * 100 ms: an ordinary check takes 10-50 ms, but a first check against new declarations or a
 * loaded machine can take a few hundred, and must not be slowed further.
 */
const backgroundAfterMs = 250;

export class CheckerWorker {
  /** The declarations and prelude this worker holds, so an unchanged set is not sent again. */
  declarations: string | undefined;
  prelude: string | undefined;
  retired = false;
  private threadId: number | undefined;
  private readonly worker: Worker;
  private readonly ready: Promise<void>;

  constructor(
    checker: TypeCheckerOptions,
    private readonly limits: CheckerWorkerLimits,
    onExit: () => void,
  ) {
    const fromSource = import.meta.url.endsWith('.ts');
    this.worker = new Worker(
      new URL(`./type-check-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url),
      {
        // The host's flags (test loaders, inspectors) are of no use here; Node strips the types
        // of the .ts entry by itself.
        execArgv: [],
        workerData: checker,
        resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb },
        stdout: false,
        stderr: false,
      },
    );
    this.worker.unref();
    this.ready = new Promise<void>((resolve, reject) => {
      const onMessage = (message: TypeCheckReply): void => {
        if (message.type === 'unavailable') {
          reject(new TypeScriptUnavailable(message.message));
        } else if (message.type === 'ready') {
          this.threadId = message.threadId;
          this.worker.off('message', onMessage);
          resolve();
        }
      };
      this.worker.on('message', onMessage);
      this.worker.once('error', reject);
      this.worker.once('exit', (code) =>
        reject(new Error(`the type-check worker exited (${code})`)),
      );
    });
    // Unobserved until a check waits on it.
    this.ready.catch(() => {});
    this.worker.once('exit', () => {
      this.retired = true;
      onExit();
    });
  }

  /** One check; every way it can fail (a limit, a crash) comes back as a code-0 diagnostic. */
  async check(request: Omit<TypeCheckRequest, 'id'>): Promise<CodeDiagnostic[]> {
    try {
      await this.ready;
    } catch (error) {
      this.retire();
      return [
        limitDiagnostic(
          error instanceof TypeScriptUnavailable
            ? `Type checking needs the "typescript" package (an optional peer dependency of @toolwire/codemode), which cannot be loaded here (${error.message}). Install it, or run with typecheck "off".`
            : `The type checker could not start (${error instanceof Error ? error.message : String(error)}).`,
        ),
      ];
    }
    const { worker } = this;
    const id = nextId++;
    const message: TypeCheckRequest = { id, body: request.body };
    if (this.declarations !== request.declarations) {
      message.declarations = request.declarations;
      this.declarations = request.declarations;
    }
    if (this.prelude !== request.prelude) {
      message.prelude = request.prelude;
      this.prelude = request.prelude;
    }
    worker.ref();
    try {
      return await new Promise<CodeDiagnostic[]>((resolve) => {
        let lowered = false;
        const background = setTimeout(() => {
          if (this.threadId !== undefined) lowered = lowerThreadPriority(this.threadId);
        }, backgroundAfterMs);
        const finish = (diagnostics: CodeDiagnostic[], retire: boolean): void => {
          clearTimeout(timer);
          clearTimeout(background);
          if (lowered && !restoreThreadPriority(this.threadId!)) retire = true;
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
          if (retire) this.retire();
          resolve(diagnostics);
        };
        const onMessage = (reply: TypeCheckReply): void => {
          if (reply.type === 'checked' && reply.id === id) finish(reply.diagnostics, false);
          else if (reply.type === 'failed' && reply.id === id)
            finish([limitDiagnostic(`The type checker failed: ${reply.message}`)], true);
        };
        const onError = (error: Error): void => {
          const outOfMemory =
            (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY' ||
            /out of memory/i.test(error.message);
          finish(
            [
              limitDiagnostic(
                outOfMemory
                  ? `Type checking needed more than ${this.limits.memoryMb} MB and was stopped: the script's types are too large to check (deeply recursive or exploding type-level code). Simplify the types, or run without type checking.`
                  : `The type checker failed: ${error.message}`,
              ),
            ],
            true,
          );
        };
        const onExit = (code: number): void => {
          finish([limitDiagnostic(`The type checker exited unexpectedly (${code}).`)], true);
        };
        // The time limit counts from here: not the wait for a worker, not its start.
        const timer = setTimeout(() => {
          finish(
            [
              limitDiagnostic(
                `Type checking took longer than ${this.limits.timeoutMs} ms and was stopped: the script's types are too complex to check (deeply recursive or exploding type-level code). Simplify the types, or run without type checking.`,
              ),
            ],
            true,
          );
        }, this.limits.timeoutMs);
        worker.on('message', onMessage);
        worker.once('error', onError);
        worker.once('exit', onExit);
        worker.postMessage(message);
      });
    } finally {
      worker.unref();
    }
  }

  /** Resolves once TypeScript is loaded and its lib files parsed (or the start failed). */
  async started(): Promise<void> {
    await this.ready.catch(() => {});
  }

  retire(): void {
    if (this.retired) return;
    this.retired = true;
    void this.worker.terminate();
  }
}

/** The worker could not load `typescript`. */
class TypeScriptUnavailable extends ToolwireError {
  constructor(message: string) {
    super('typescript_unavailable', { message });
    this.name = 'TypeScriptUnavailable';
  }
}
