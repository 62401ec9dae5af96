import { CancelledError, StreamProtocolError } from '@toolwire/schema';

/**
 * Iterates `source`, failing with a `StreamProtocolError` when no item arrives for `idleMs`
 * (a stalled connection never ends on its own) and with a `CancelledError` as soon as `signal`
 * aborts (without waiting for the transport to notice). `onStop` runs first, to abort the request.
 */
export async function* guardStream<T>(
  source: AsyncIterable<T>,
  options: {
    idleMs: number;
    signal: AbortSignal | undefined;
    onStop: () => void;
    provider: string;
  },
): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  try {
    while (true) {
      const result = await guard(iterator.next(), {
        ms: options.idleMs,
        signal: options.signal,
        onTimeout: () => {
          options.onStop();
          return new StreamProtocolError({
            provider: options.provider,
            message: `the ${options.provider} stream sent nothing for ${options.idleMs} ms and was closed (stalled connection)`,
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
    // Not awaited: after a stall the pending `next()` may never settle, and `return()` queues behind it.
    if (!finished) void iterator.return?.()?.catch(() => undefined);
  }
}

/**
 * Resolves like `promise`, or rejects with `onTimeout()`'s error after `ms` (when both are given),
 * or with a `CancelledError` as soon as `signal` aborts.
 */
export function guard<T>(
  promise: Promise<T>,
  options: { ms?: number; signal?: AbortSignal | undefined; onTimeout?: () => Error },
): Promise<T> {
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
