import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { queuedConnections } from './accept-queue.js';

const HAS_IPV6_LOOPBACK =
  existsSync('/proc/net/if_inet6') &&
  readFileSync('/proc/net/if_inet6', 'latin1').includes('00000000000000000000000000000001');

// In CI (Linux) a missing /proc/net/tcp fails the test instead of skipping it.
describe.skipIf(!existsSync('/proc/net/tcp') && !process.env.CI)(
  `queuedConnections${existsSync('/proc/net/tcp') ? '' : ' (skipped: Linux /proc/net/tcp only)'}`,
  () => {
    it('counts connections the kernel completed that the listening process has not accepted yet', async () => {
      // The listener is in a child whose event loop is blocked: connections to it wait in the
      // kernel's accept queue until it wakes up and accepts them.
      const child = spawn(
        process.execPath,
        [
          '-e',
          `const net = require('node:net');
           const server = net.createServer((socket) => socket.destroy());
           server.listen(0, '127.0.0.1', () => {
             process.stdout.write(server.address().port + '\\n');
             process.stdin.once('data', () => {
               // Written before the loop blocks (stdout to a pipe is synchronous on Linux).
               process.stdout.write('blocking\\n');
               Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);
             });
           });`,
        ],
        { stdio: ['pipe', 'pipe', 'inherit'] },
      );
      const sockets: Socket[] = [];
      try {
        const port = await new Promise<number>((resolve) =>
          child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString()))),
        );
        expect(await queuedConnections(port)).toBe(0);
        const blocking = new Promise((resolve) => child.stdout!.once('data', resolve));
        child.stdin!.write('block\n');
        await blocking;
        for (let i = 0; i < 2; i++) {
          const socket = connect(port, '127.0.0.1');
          socket.on('error', () => {});
          await new Promise((r) => socket.once('connect', r));
          sockets.push(socket);
        }
        expect(await queuedConnections(port)).toBe(2);
        // Awake again, the child accepts them.
        await vi.waitFor(async () => expect(await queuedConnections(port)).toBe(0), {
          timeout: 10_000,
          interval: 50,
        });
      } finally {
        for (const socket of sockets) socket.destroy();
        child.kill();
      }
    });

    it('is undefined where nothing listens', async () => {
      expect(await queuedConnections(1)).toBeUndefined();
    });

    it.skipIf(!HAS_IPV6_LOOPBACK)(
      `reads the IPv6 table for an IPv6 listener${HAS_IPV6_LOOPBACK ? '' : ' (skipped: no ::1 on this machine)'}`,
      async () => {
        const server = createServer();
        await new Promise<void>((resolve) => server.listen(0, '::1', resolve));
        try {
          const { port } = server.address() as AddressInfo;
          expect(await queuedConnections(port, 'IPv6')).toBe(0);
          expect(await queuedConnections(port, 'IPv4')).toBeUndefined();
        } finally {
          server.close();
        }
      },
    );
  },
);
