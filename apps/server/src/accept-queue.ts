import { readFileSync } from 'node:fs';

/**
 * Connections the kernel completed on the listener of `port` that the process has not accepted
 * yet: Linux shows a listening socket's accept queue as its `rx_queue` in `/proc/net/tcp(6)`.
 * `undefined` where that is not readable (other systems).
 *
 * Closing a listener resets these connections, after a client may have sent its request on one
 * (nginx answers that POST with a 502 and does not resend it), so a draining server closes its
 * listener when this is 0.
 */
export function queuedConnections(port: number): number | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  let found: number | undefined;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'latin1');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      // sl local_address rem_address st tx_queue:rx_queue ...; st 0A is LISTEN.
      const fields = line.trim().split(/\s+/);
      if (fields[3] !== '0A' || !fields[1]?.endsWith(`:${hexPort}`)) continue;
      const queued = Number.parseInt(fields[4]?.split(':')[1] ?? '', 16);
      if (Number.isFinite(queued)) found = Math.max(found ?? 0, queued);
    }
  }
  return found;
}
