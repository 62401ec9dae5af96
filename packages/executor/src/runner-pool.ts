import { WaitAbortedError } from './errors.js';
import type { HostMessage, RunnerMessage } from './protocol.js';

/** One worker thread or child process that runs one script at a time. */
export interface RunnerChannel {
  send(message: HostMessage): void;
  /** Replaces the message listener (one run at a time listens). */
  onMessage(listener: ((message: RunnerMessage) => void) | undefined): void;
  /** Calls `listener` once if the runner dies (crash, exit, termination); returns an unsubscribe. */
  onExit(listener: (error: Error) => void): () => void;
  /** Resolves once the runner has loaded its engine. */
  readonly ready: Promise<void>;
  /** Whether the runner keeps the host process alive (only while it runs something). */
  setActive(active: boolean): void;
  terminate(): Promise<void>;
  /** True when the runner can cancel a busy engine through shared memory (worker threads). */
  readonly sharedStopFlag: boolean;
  /** The runner's thread as the kernel knows it (a worker thread on Linux), once it is ready. */
  readonly threadId?: number | undefined;
}

interface PooledRunner {
  channel: RunnerChannel;
  dead: boolean;
}

/**
 * A fixed-size pool of runners, created lazily. A run borrows a runner and gives it back, or
 * discards it (after a termination or a memory error) so the next run gets a fresh one.
 */
export class RunnerPool {
  private readonly idle: PooledRunner[] = [];
  private readonly waiting: Array<{
    resolve: (runner: PooledRunner) => void;
    reject: (error: unknown) => void;
  }> = [];
  private readonly all = new Set<PooledRunner>();
  private closed = false;

  private readonly size: number;
  private readonly spawn: () => RunnerChannel;

  constructor(size: number, spawn: () => RunnerChannel) {
    this.size = size;
    this.spawn = spawn;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runners started and free. */
  get idleCount(): number {
    return this.idle.length;
  }

  /** A runner for one run; waits for a free one when all are busy (until `signal` aborts). */
  async acquire(signal?: AbortSignal): Promise<PooledRunner> {
    const runner = this.idle.pop();
    if (runner) return runner;
    if (this.all.size < this.size) return this.create();
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: (next: PooledRunner) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(next);
        },
        reject,
      };
      const onAbort = (): void => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(new WaitAbortedError({ reason: 'cancelled' }));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  release(runner: PooledRunner): void {
    if (runner.dead || this.closed) {
      void this.discard(runner);
      return;
    }
    const next = this.waiting.shift();
    if (next) next.resolve(runner);
    else this.idle.push(runner);
  }

  /**
   * Drops a runner (terminating it) and starts its replacement at once; resolves when the
   * replacement is ready (or could not start), so a caller can hold its share of the pool until
   * then instead of taking another runner meanwhile.
   */
  discard(runner: PooledRunner): Promise<void> {
    runner.dead = true;
    this.all.delete(runner);
    const index = this.idle.indexOf(runner);
    if (index >= 0) this.idle.splice(index, 1);
    void runner.channel.terminate();
    if (this.closed) return Promise.resolve();
    // The replacement starts now, not when the next run asks for it: the run that cost the pool a
    // runner (a stop, a memory error) does not make another owner's next run wait for an engine.
    const next = this.waiting.shift();
    return this.create().then(
      (fresh) => (next ? next.resolve(fresh) : this.release(fresh)),
      (error: unknown) => next?.reject(error),
    );
  }

  /** Starts runners up to `count` so the first runs do not pay for engine start-up. */
  async warm(count = this.size): Promise<void> {
    if (this.closed) return;
    const started: PooledRunner[] = [];
    while (this.all.size < Math.min(count, this.size)) started.push(await this.create());
    for (const runner of started) this.release(runner);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0))
      waiter.reject(new WaitAbortedError({ reason: 'closed' }));
    await Promise.all([...this.all].map((runner) => runner.channel.terminate()));
    this.all.clear();
    this.idle.length = 0;
  }

  private async create(): Promise<PooledRunner> {
    const channel = this.spawn();
    const runner: PooledRunner = { channel, dead: false };
    this.all.add(runner);
    channel.onExit(() => {
      runner.dead = true;
      this.all.delete(runner);
      const index = this.idle.indexOf(runner);
      if (index >= 0) this.idle.splice(index, 1);
    });
    try {
      await channel.ready;
    } catch (error) {
      this.all.delete(runner);
      runner.dead = true;
      void channel.terminate();
      throw error;
    }
    return runner;
  }
}

export type { PooledRunner };
