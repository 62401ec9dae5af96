// Long work gives way to short work: a sandbox thread (a QuickJS worker, a type-check worker) busy
// with one run or check for long is given a lower scheduling priority (on Linux a thread has its
// own nice value), so the short runs of other owners on the other threads get the CPU first, and
// back to normal when it is done. Erasable TypeScript only: the QuickJS worker loads this file.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Nice value of a thread busy for long: other threads at 0 get about nine tenths of a shared core. */
const backgroundNice = 10;

/** The kernel's id of the calling thread (Linux), to report to the host; undefined elsewhere. */
export function currentThreadId(): number | undefined {
  try {
    const id = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isSafeInteger(id) && id > 0 ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Lowers a thread's priority; false when the system does not allow it (nothing changed). */
export function lowerThreadPriority(threadId: number): boolean {
  try {
    setPriority(threadId, backgroundNice);
    return true;
  } catch {
    return false;
  }
}

/**
 * Gives a thread its normal priority back; false when only a privileged process may raise a
 * priority again (an unprivileged one cannot): the caller then replaces the thread.
 */
export function restoreThreadPriority(threadId: number): boolean {
  try {
    setPriority(threadId, 0);
    return true;
  } catch {
    return false;
  }
}
