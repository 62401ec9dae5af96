import { readFile } from 'node:fs/promises';

/**
 * Connections the kernel completed on the listener of `port` that the process has not accepted
 * yet: Linux shows a listening socket's accept queue as its `rx_queue` in `/proc/net/tcp` (IPv4)
 * or `/proc/net/tcp6` (IPv6, dual-stack included). `undefined` where that is not readable (other
 * systems) or no socket listens on `port`.
 *
 * Closing a listener resets these connections, after a client may have sent its request on one
 * (nginx answers that POST with a 502 and does not resend it), so a draining server closes its
 * listener when this is 0. The file is read off the event loop: on some kernels a read takes
 * several milliseconds, and a loop blocked that long is what fills the queue (a load balancer whose
 * kept connections to this instance are all waiting opens new ones).
 */
export async function queuedConnections(
  port: number,
  family: 'IPv4' | 'IPv6' = 'IPv4',
): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(family === 'IPv6' ? '/proc/net/tcp6' : '/proc/net/tcp', 'latin1');
  } catch {
    return undefined;
  }
  const local = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let found: number | undefined;
  for (const line of text.split('\n')) {
    // sl local_address rem_address st tx_queue:rx_queue ...; st 0A is LISTEN.
    const fields = line.trim().split(/\s+/);
    if (fields[3] !== '0A' || !fields[1]?.endsWith(local)) continue;
    const queued = Number.parseInt(fields[4]?.split(':')[1] ?? '', 16);
    if (Number.isFinite(queued)) found = Math.max(found ?? 0, queued);
  }
  return found;
}
