import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CancelledError } from './errors.js';
import { guardPromise, guardStream } from './guard-stream.js';
import { StreamProtocolError } from './provider-errors.js';

/** An async iterable that yields `items` and then never settles, recording `return()` calls. */
function stallingSource<T>(items: T[]) {
  const state = { returned: 0, pulled: 0 };
  const iterable: AsyncIterable<T> = {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        const item = items[state.pulled++];
        return item === undefined
          ? new Promise<IteratorResult<T>>(() => undefined)
          : Promise.resolve({ done: false, value: item });
      },
      return: () => {
        state.returned++;
        return Promise.resolve({ done: true, value: undefined });
      },
    }),
  };
  return { iterable, state };
}

async function* finite<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield await Promise.resolve(item);
}

describe('guardStream', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('passes every item through and ends with the source', async () => {
    const onStop = vi.fn();
    const seen: number[] = [];
    for await (const item of guardStream(finite([1, 2, 3]), {
      idleMs: 50,
      provider: 'p',
      onStop,
    }))
      seen.push(item);
    expect(seen).toEqual([1, 2, 3]);
    expect(onStop).not.toHaveBeenCalled();
  });

  it('fails with StreamProtocolError when nothing arrives for idleMs, after calling onStop', async () => {
    const { iterable, state } = stallingSource(['a']);
    const onStop = vi.fn();
    const iterator = guardStream(iterable, { idleMs: 50, provider: 'acme', onStop });
    expect(await iterator.next()).toEqual({ done: false, value: 'a' });
    const pending = iterator.next();
    const failure = pending.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(49);
    expect(onStop).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    const error = await failure;
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect(error).toMatchObject({ provider: 'acme', code: 'stream_protocol' });
    expect((error as Error).message).toMatch(/acme.*50 ms.*idleTimeoutMs/);
    expect(onStop).toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(0);
    expect(state.returned).toBe(1);
  });

  it('uses idleMessage for the idle error when given', async () => {
    const { iterable } = stallingSource<string>([]);
    const failure = guardStream(iterable, { idleMs: 10, provider: 'p', idleMessage: 'custom' })
      .next()
      .catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(10);
    expect(await failure).toMatchObject({ name: 'StreamProtocolError', message: 'custom' });
  });

  it('does not count the time the consumer holds an item', async () => {
    const seen: string[] = [];
    for await (const item of guardStream(finite(['a', 'b', 'c']), { idleMs: 10, provider: 'p' })) {
      seen.push(item);
      await vi.advanceTimersByTimeAsync(1_000);
    }
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('has no idle limit when idleMs is not a positive finite number', async () => {
    const { iterable } = stallingSource<string>([]);
    let settled = false;
    void guardStream(iterable, { idleMs: Number.POSITIVE_INFINITY, provider: 'p' })
      .next()
      .finally(() => {
        settled = true;
      });
    await vi.advanceTimersByTimeAsync(1_000_000);
    expect(settled).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('fails with CancelledError as soon as the signal aborts, keeping the reason as cause', async () => {
    const { iterable } = stallingSource<string>([]);
    const controller = new AbortController();
    const onStop = vi.fn();
    const failure = guardStream(iterable, {
      idleMs: 1_000,
      provider: 'p',
      signal: controller.signal,
      onStop,
    })
      .next()
      .catch((error: unknown) => error);
    const reason = new Error('user left');
    controller.abort(reason);
    const error = await failure;
    expect(error).toBeInstanceOf(CancelledError);
    expect((error as Error).cause).toBe(reason);
    expect(onStop).toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('fails at once when the signal aborted while the consumer held an item', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const run = async () => {
      for await (const item of guardStream(finite([1, 2]), {
        idleMs: 1_000,
        provider: 'p',
        signal: controller.signal,
      })) {
        seen.push(item);
        controller.abort();
      }
    };
    await expect(run()).rejects.toBeInstanceOf(CancelledError);
    expect(seen).toEqual([1]);
  });

  it('calls onStop and closes the source when the consumer stops early', async () => {
    const { iterable, state } = stallingSource(['a', 'b', 'c']);
    const onStop = vi.fn();
    for await (const item of guardStream(iterable, { idleMs: 50, provider: 'p', onStop })) {
      if (item === 'a') break;
    }
    expect(onStop).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(0);
    expect(state.returned).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('passes on an error from the source and stops the request', async () => {
    const onStop = vi.fn();
    async function* broken(): AsyncGenerator<number> {
      yield 1;
      throw new Error('socket closed');
    }
    const run = async () => {
      for await (const item of guardStream(broken(), { idleMs: 50, provider: 'p', onStop }))
        void item;
    };
    await expect(run()).rejects.toThrow('socket closed');
    expect(onStop).toHaveBeenCalledTimes(1);
  });
});

describe('guardPromise', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves like the promise and clears its timer and listener', async () => {
    const controller = new AbortController();
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    const value = await guardPromise(Promise.resolve(7), {
      ms: 100,
      signal: controller.signal,
      onTimeout: () => new Error('late'),
    });
    expect(value).toBe(7);
    expect(vi.getTimerCount()).toBe(0);
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
  });

  it('rejects like the promise', async () => {
    await expect(guardPromise(Promise.reject(new Error('boom')), { ms: 100 })).rejects.toThrow(
      'boom',
    );
  });

  it('rejects with the onTimeout error after ms', async () => {
    const failure = guardPromise(new Promise(() => undefined), {
      ms: 30,
      onTimeout: () => new Error('too slow'),
    }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(30);
    expect(await failure).toMatchObject({ message: 'too slow' });
  });

  it('rejects with CancelledError at once when the signal has already aborted', async () => {
    await expect(
      guardPromise(new Promise(() => undefined), { signal: AbortSignal.abort('gone') }),
    ).rejects.toMatchObject({ name: 'CancelledError', cause: 'gone' });
  });

  it('never times out without onTimeout', async () => {
    let settled = false;
    void guardPromise(new Promise(() => undefined), { ms: 10 }).finally(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(settled).toBe(false);
  });
});
