import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { startGateway } from './helpers.js';

const CONNECTIONS = 4;

/** The accept queue of the listener on `port`, read without yielding to the event loop. */
function queuedNow(port: number): number {
  const local = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let queued = 0;
  for (const line of readFileSync('/proc/net/tcp', 'latin1').split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields[3] === '0A' && fields[1]?.endsWith(local))
      queued = Math.max(queued, Number.parseInt(fields[4]!.split(':')[1]!, 16));
  }
  return queued;
}

// A client in another process: told on its stdin, it opens the connections, sends a request on each and
// prints the status line each got (or the error), one JSON array once all are closed.
const CLIENT = `
const net = require('node:net');
const port = Number(process.argv[1]);
process.stdin.once('data', () => {
  const lines = [];
  for (let i = 0; i < ${CONNECTIONS}; i++) {
    let data = '';
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write('GET /healthz HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n'));
    socket.on('data', (chunk) => (data += chunk));
    socket.on('error', (error) => (data += 'error ' + error.code));
    socket.on('close', () => {
      lines.push(data.split('\\r\\n')[0]);
      if (lines.length === ${CONNECTIONS}) process.stdout.write(JSON.stringify(lines) + '\\n');
    });
  }
});
process.stdout.write('ready\\n');
`;

// In CI (Linux) a missing /proc/net/tcp fails the test instead of skipping it.
describe.skipIf(!existsSync('/proc/net/tcp') && !process.env.CI)(
  `close() and the accept queue${existsSync('/proc/net/tcp') ? '' : ' (skipped: Linux /proc/net/tcp only)'}`,
  () => {
    it('serves the connections waiting in the accept queue when it stops, rather than resetting them', async () => {
      const gw = await startGateway({ mcpServers: {} });
      const port = Number(new URL(gw.url).port);
      const client = spawn(process.execPath, ['-e', CLIENT, String(port)], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      const lines = createInterface({ input: client.stdout! })[Symbol.asyncIterator]();
      try {
        expect((await lines.next()).value).toBe('ready');
        // This process (the gateway's) stays busy until the kernel holds every connection in the
        // listener's accept queue: completed, a request sent on each, none accepted yet.
        client.stdin!.write('go\n');
        // Between looks the thread sleeps: reading the kernel's table without pause can hold up the
        // very handshakes it waits for.
        const pause = new Int32Array(new SharedArrayBuffer(4));
        let queued = 0;
        for (let looks = 0; looks < 1_000 && queued < CONNECTIONS; looks++) {
          Atomics.wait(pause, 0, 0, 20);
          queued = queuedNow(port);
        }
        expect(queued).toBe(CONNECTIONS);
        // Stopping now: the listener must not close while they wait (Linux resets them then).
        const stopping = gw.server.stopNow();
        await stopping;
        const answers = JSON.parse((await lines.next()).value as string) as string[];
        expect(answers).toEqual(Array.from({ length: CONNECTIONS }, () => 'HTTP/1.1 200 OK'));
      } finally {
        client.kill();
        await gw.close();
      }
    });
  },
);
