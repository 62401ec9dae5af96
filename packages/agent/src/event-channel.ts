/**
 * A push-to-pull bridge: the run pushes events as they happen (also from parallel tool calls),
 * the consumer pulls them with `for await`. Stopping the iteration early calls `onStop`.
 */
export class EventChannel<T> implements AsyncIterable<T> {
  private readonly buffer: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private failWaiting: ((error: unknown) => void) | undefined;
  private ended = false;
  private failure: { error: unknown } | undefined;

  constructor(private readonly onStop: () => void) {}

  push(value: T): void {
    if (this.ended) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.clearWaiting();
      resolve({ value, done: false });
    } else this.buffer.push(value);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.waiting) {
      const resolve = this.waiting;
      this.clearWaiting();
      resolve({ value: undefined, done: true });
    }
  }

  fail(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = { error };
    if (this.failWaiting) {
      const reject = this.failWaiting;
      this.clearWaiting();
      reject(error);
    }
  }

  private clearWaiting(): void {
    this.waiting = undefined;
    this.failWaiting = undefined;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const value = this.buffer.shift();
        if (value !== undefined) return Promise.resolve({ value, done: false });
        if (this.failure) {
          const { error } = this.failure;
          this.failure = undefined;
          return Promise.reject(error);
        }
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise<IteratorResult<T>>((resolve, reject) => {
          this.waiting = resolve;
          this.failWaiting = reject;
        });
      },
      return: () => {
        if (!this.ended) {
          this.ended = true;
          this.buffer.length = 0;
          this.onStop();
        }
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
