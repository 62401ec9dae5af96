import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { queuedConnections } from './accept-queue.js';

describe.skipIf(!existsSync('/proc/net/tcp'))(
  `queuedConnections${existsSync('/proc/net/tcp') ? '' : ' (skipped: Linux /proc/net/tcp only)'}`,
  () => {
    it('counts connections the kernel completed that the process has not accepted yet', async () => {
      const server = createServer((socket) => socket.destroy());
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address() as AddressInfo;
      try {
        expect(queuedConnections(port)).toBe(0);
        // spawnSync blocks this event loop: the child's connections wait in the accept queue.
        const child = spawnSync(process.execPath, [
          '-e',
          `const net = require('node:net');
           let open = 0;
           for (let i = 0; i < 2; i++) net.connect(${port}, '127.0.0.1', () => { if (++open === 2) process.exit(0); });`,
        ]);
        expect(child.status).toBe(0);
        expect(queuedConnections(port)).toBe(2);
        await new Promise((r) => setTimeout(r, 50));
        expect(queuedConnections(port)).toBe(0);
        expect(queuedConnections(1)).toBeUndefined();
      } finally {
        server.close();
      }
    });
  },
);
