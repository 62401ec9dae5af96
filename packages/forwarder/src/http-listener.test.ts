import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createForwarder, type Forwarder } from './forwarder.js';
import type { ToolSource } from './tool-source.js';

const source: ToolSource = {
  listTools: () => [],
  servers: () => [],
  resolve: () => undefined,
  onToolsChanged: () => () => {},
  callTool: async () => ({ content: [] }),
};

const forwarders: Forwarder[] = [];
afterEach(async () => {
  while (forwarders.length > 0) await forwarders.pop()!.close();
});

async function listen(options: Parameters<typeof createForwarder>[0]): Promise<URL> {
  const forwarder = createForwarder({ audit: false, ...options });
  forwarders.push(forwarder);
  return new URL((await forwarder.listen()).url);
}

/** A raw connection that records what it receives and whether it closed. */
function raw(url: URL): Promise<{ socket: Socket; received: () => string; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    let received = '';
    let closed = false;
    const socket = connect(Number(url.port), url.hostname, () =>
      resolve({ socket, received: () => received, closed: () => closed }),
    );
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('close', () => (closed = true));
    socket.on('error', reject);
  });
}

describe('createForwarder().listen()', () => {
  it('closes a kept-alive connection that drips blank lines instead of its next request', async () => {
    const url = await listen({ source, listener: { headersTimeoutMs: 300 } });
    const client = await raw(url);
    client.socket.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await vi.waitFor(() => expect(client.received()).toContain('HTTP/1.1 200'));
    const drip = setInterval(() => client.socket.writable && client.socket.write('\r\n'), 50);
    try {
      await vi.waitFor(() => expect(client.closed()).toBe(true), { timeout: 10_000 });
    } finally {
      clearInterval(drip);
    }
    expect(client.received()).toContain('HTTP/1.1 408');
  });

  it('answers a connection past the per-address cap 503 before reading it', async () => {
    const url = await listen({ source, listener: { maxConnectionsPerAddress: 2 } });
    const held = [await raw(url), await raw(url)];
    const third = await raw(url);
    await vi.waitFor(() => expect(third.closed()).toBe(true));
    expect(third.received()).toMatch(/^HTTP\/1\.1 503/);
    for (const client of held) client.socket.destroy();
  });

  it('answers the CORS preflight of a listed origin, and of no other', async () => {
    const url = await listen({ source, allowedOrigins: ['http://app.example:3000'] });
    const preflight = (origin: string) =>
      fetch(new URL('/mcp', url), {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
    const listed = await preflight('http://app.example:3000');
    expect(listed.status).toBe(204);
    expect(listed.headers.get('access-control-allow-origin')).toBe('http://app.example:3000');
    const other = await preflight('http://evil.example');
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
