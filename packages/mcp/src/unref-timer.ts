/**
 * Lets the process exit while `timer` is pending where a timer is an object that can (Node, Deno,
 * Bun). In browsers and workers a timer is a number and there is no process to keep alive.
 */
export function unrefTimer(timer: ReturnType<typeof setTimeout> | undefined): void {
  (timer as { unref?: () => void } | undefined)?.unref?.();
}
