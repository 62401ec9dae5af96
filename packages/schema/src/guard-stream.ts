import { CancelledError } from './errors.js';
import { StreamProtocolError } from './provider-errors.js';

export interface GuardStreamOptions {
  /** Fail when no item arrives for this long. Non-finite or non-positive: no idle limit. */
  idleMs: number;
  /** The caller's signal: the stream fails with `CancelledError` as soon as it aborts. */
  signal?: AbortSignal | undefined;
  /**
   * Stops the underlying request (usually `controller.abort()`). Runs before the idle error is
   * thrown, and when the stream ends without reaching its end (consumer `break`, an error), so a
   * connection never stays open.
   */
  onStop?: () => void;
  /** Provider name for the idle `StreamProtocolError`. */
  provider: string;
  /** Message of the idle error; the default names the provider, `idleMs` and `idleTimeoutMs`. */
  idleMessage?: string;
}

/**
 * Iterates `source`, failing with a `StreamProtocolError` when no item arrives for `idleMs`
 * (a stalled connection never ends on its own) and with a `CancelledError` as soon as `signal`
 * aborts (without waiting for the transport to notice).
 *
 * The clock runs only while waiting for the next item: time the consumer spends holding an item
 * is not counted, because a slow consumer is not a silent server.
 */
export async function* guardStream<T>(
  source: AsyncIterable<T>,
  options: GuardStreamOptions,
): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  try {
    while (true) {
      const result = await guardPromise(iterator.next(), {
        ms: options.idleMs,
        signal: options.signal,
        onTimeout: () => {
          options.onStop?.();
          return new StreamProtocolError({
            provider: options.provider,
            message:
              options.idleMessage ??
              `${options.provider}: the stream sent nothing for ${options.idleMs} ms and was closed (stalled connection, idleTimeoutMs)`,
          });
        },
      });
      if (result.done) {
        finished = true;
        return;
      }
      yield result.value;
    }
  } finally {
    if (!finished) {
      options.onStop?.();
      // Not awaited: after a stall the pending `next()` may never settle, and `return()` queues behind it.
      void Promise.resolve()
        .then(() => iterator.return?.())
        .catch(() => undefined);
    }
  }
}

export interface GuardPromiseOptions {
  /** Reject with `onTimeout()`'s error after this long (both must be given; non-finite: never). */
  ms?: number;
  signal?: AbortSignal | undefined;
  onTimeout?: () => Error;
}

/**
 * Resolves like `promise`, or rejects with `onTimeout()`'s error after `ms`, or with a
 * `CancelledError` as soon as `signal` aborts (at once when it already has). Timer and listener
 * are removed when it settles.
 */
export function guardPromise<T>(promise: Promise<T>, options: GuardPromiseOptions): Promise<T> {
  const { ms, signal, onTimeout } = options;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stops = new Promise<never>((_, reject) => {
    if (ms !== undefined && onTimeout && Number.isFinite(ms) && ms > 0) {
      timer = setTimeout(() => reject(onTimeout()), ms);
    }
    if (signal) {
      onAbort = () =>
        reject(new CancelledError({ message: 'The request was aborted', cause: signal.reason }));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  return Promise.race([promise, stops]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  });
}
