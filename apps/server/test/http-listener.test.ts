// The gateway's listener against clients that misbehave on the wire, through raw sockets: headers
// dripped a byte at a time, uploads too large to accept, more connections than it should hold,
// Host headers that only look allowed, fetch metadata in capitals, and browser pages of origins
// it lists (CORS) and does not list.
import { spawn, spawnSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, waitFor, type TestGateway } from './helpers.js';

interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far. */
  received: () => string;
  closed: Promise<void>;
  isClosed: () => boolean;
  /** Bytes this client wrote. */
  written: () => number;
}

/** A raw TCP connection to `url`'s port (from `localAddress`, when given). */
function rawConnection(
  url: string,
  options: { localAddress?: string; allowHalfOpen?: boolean } = {},
): Promise<RawConnection> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    let received = '';
    let written = 0;
    let isClosed = false;
    const socket = connect(
      {
        port: Number(target.port),
        host: target.hostname,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
        allowHalfOpen: options.allowHalfOpen ?? false,
      },
      () =>
        resolve({
          socket,
          received: () => received,
          closed,
          isClosed: () => isClosed,
          written: () => written,
        }),
    );
    const write = socket.write.bind(socket);
    socket.write = ((chunk: string | Buffer, ...rest: never[]) => {
      written += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      return write(chunk, ...rest);
    }) as typeof socket.write;
    const closed = new Promise<void>((done) =>
      socket.once('close', () => {
        isClosed = true;
        done();
      }),
    );
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

/** Writes `text` one byte every `everyMs` until the connection closes (or `limit` bytes). */
function drip(connection: RawConnection, text: string, everyMs: number, limit = 1_000): void {
  let at = 0;
  const timer = setInterval(() => {
    if (connection.socket.destroyed || !connection.socket.writable || at >= limit) {
      clearInterval(timer);
      return;
    }
    connection.socket.write(text[at % text.length]!);
    at++;
  }, everyMs);
  void connection.closed.then(() => clearInterval(timer));
}

describe('the listener, with its defaults (headers within 10 s)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ mcpServers: {} }, { requestTimeoutMs: 30_000 });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('cuts a client dripping one header byte every 2 s, also blank lines after a kept-alive answer', async () => {
    // Blank lines start no request: Node's own header timeout never starts, and each byte renews
    // the keep-alive timeout. A fresh connection dripping a header line is the plain case.
    const kept = await rawConnection(gw.url);
    kept.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await waitFor(() => kept.received().includes('"status":"ok"') || undefined, 'the first answer');
    drip(kept, '\r\n', 2_000);
    const fresh = await rawConnection(gw.url);
    drip(
      fresh,
      'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      2_000,
    );
    // Each would drip for ~30 minutes; both are answered 408 and closed well before this wait ends.
    await waitFor(
      () => kept.isClosed() || undefined,
      'the dripping keep-alive connection to close',
      30_000,
      250,
    );
    await waitFor(
      () => fresh.isClosed() || undefined,
      'the dripping connection to close',
      30_000,
      250,
    );
    expect(kept.received()).toContain('HTTP/1.1 408');
    expect(fresh.received()).toContain('HTTP/1.1 408');
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
  }, 60_000);

  it('lets a client that writes its whole 10 MB body before reading (as urllib does) read the 413', async () => {
    for (const close of [true, false]) {
      const size = 10 * 1024 * 1024;
      const client = await rawConnection(gw.url, { allowHalfOpen: true });
      client.socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\n${close ? 'Connection: close\r\n' : ''}Content-Length: ${size}\r\n\r\n`,
      );
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      await new Promise<void>((resolve) => {
        const pump = (): void => {
          while (sent < size && client.socket.writable) {
            sent += chunk.length;
            if (!client.socket.write(chunk)) {
              client.socket.once('drain', pump);
              return;
            }
          }
          resolve();
        };
        pump();
        void client.closed.then(() => resolve());
      });
      expect(sent, `everything written (Connection: close ${close})`).toBe(size);
      await waitFor(
        () => client.received().includes('Request body over') || undefined,
        () => `the 413 (Connection: close ${close}; got ${JSON.stringify(client.received())})`,
      );
      expect(client.received()).toMatch(/^HTTP\/1\.1 413/);
      client.socket.destroy();
    }
  });

  const python = spawnSync('python3', ['--version']).status === 0;
  it.skipIf(!python)(
    `answers Python's urllib a readable 413 for a 10 MB body${python ? '' : ' (skipped: python3 is not installed)'}`,
    async () => {
      const script = `
import urllib.request, urllib.error, sys
request = urllib.request.Request(sys.argv[1], data=b'x' * (10 * 1024 * 1024), headers={'content-type': 'application/json', 'accept': 'application/json'})
try:
    urllib.request.urlopen(request)
    print('no error')
except urllib.error.HTTPError as error:
    print(error.code, error.read().decode()[:80])
except Exception as error:
    print('failed', repr(error))
`;
      const child = spawn('python3', ['-c', script, `${gw.url}/mcp`]);
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await new Promise<void>((resolve) => child.on('close', () => resolve()));
      expect(out).toMatch(/^413 .*Request body over/);
    },
  );

  it('stops reading an endless upload after a bounded drain, the 413 read first', async () => {
    const client = await rawConnection(gw.url, { allowHalfOpen: true });
    client.socket.write(
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const chunk = Buffer.concat([
      Buffer.from('10000\r\n'),
      Buffer.alloc(0x10000, 'x'),
      Buffer.from('\r\n'),
    ]);
    // As fast as the server reads, for as long as it reads (up to 8 GiB).
    const pump = (): void => {
      while (client.socket.writable && client.written() < 8 * 1024 ** 3) {
        if (!client.socket.write(chunk)) {
          client.socket.once('drain', pump);
          return;
        }
      }
    };
    pump();
    await waitFor(() => client.isClosed() || undefined, 'the server to stop reading', 60_000, 250);
    expect(client.received()).toMatch(/^HTTP\/1\.1 413/);
    // 4 MiB accepted, at most 16 MiB drained after the answer, plus what the kernels buffered.
    expect(client.written()).toBeLessThan(96 * 1024 * 1024);
  }, 90_000);
});

describe('the listener, with connection caps', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway(
      { mcpServers: {} },
      { maxConnections: 12, maxConnectionsPerAddress: 5 },
    );
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('answers one connection past the per-address cap, and past the global cap, 503', async () => {
    const held: RawConnection[] = [];
    try {
      for (let i = 0; i < 5; i++)
        held.push(await rawConnection(gw.url, { localAddress: '127.0.0.1' }));
      const sixth = await rawConnection(gw.url, { localAddress: '127.0.0.1' });
      await sixth.closed;
      expect(sixth.received()).toMatch(/^HTTP\/1\.1 503/);
      // Another address still gets in, until the gateway holds 12 in all.
      for (let i = 0; i < 5; i++)
        held.push(await rawConnection(gw.url, { localAddress: '127.0.0.2' }));
      for (let i = 0; i < 2; i++)
        held.push(await rawConnection(gw.url, { localAddress: '127.0.0.3' }));
      const over = await rawConnection(gw.url, { localAddress: '127.0.0.3' });
      await over.closed;
      expect(over.received()).toMatch(/^HTTP\/1\.1 503/);
      // A held connection is served as ever.
      held[0]!.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await waitFor(
        () => held[0]!.received().includes('"status":"ok"') || undefined,
        'an answer on a held connection',
      );
    } finally {
      for (const connection of held) connection.socket.destroy();
    }
    // Once they close, new connections are accepted again.
    await waitFor(
      async () => ((await fetch(`${gw.url}/healthz`)).status === 200 ? true : undefined),
      'a new connection',
    );
    expect(gw.logs.some((line) => line.msg === 'connection refused')).toBe(true);
  });
});

describe('the request guard', () => {
  let gw: TestGateway;
  let port: string;
  beforeAll(async () => {
    gw = await startGateway(
      { mcpServers: {} },
      { allowedHosts: ['localhost', '127.0.0.1', 'http://app.example:5174'] },
    );
    port = new URL(gw.url).port;
  });
  afterAll(async () => {
    await gw?.close();
  });

  /** One raw request and the status line of its answer. */
  async function status(lines: string[]): Promise<string> {
    const client = await rawConnection(gw.url);
    client.socket.write(`${lines.join('\r\n')}\r\nConnection: close\r\n\r\n`);
    await client.closed;
    return client.received().split('\r\n')[0]!;
  }

  it('refuses a Host that only starts like an allowed one', async () => {
    for (const host of [
      `[::1]evil.com`,
      `127.0.0.1:${port}, evil.com`,
      `127.0.0.1:${port} evil.com`,
      '127.0.0.1:99999',
    ]) {
      expect(await status(['GET /api/overview HTTP/1.1', `Host: ${host}`]), host).toMatch(
        / 40[03] /,
      );
    }
    expect(
      await status(['GET /api/overview HTTP/1.1', `Host: 127.0.0.1:${port}`, 'Host: evil.com']),
      'two Host headers',
    ).toMatch(/ 40[03] /);
    expect(await status(['GET /api/overview HTTP/1.1', `Host: 127.0.0.1:${port}`])).toMatch(
      / 200 /,
    );
  });

  it('reads fetch metadata without case, and lets a navigation from another site open the page shell only', async () => {
    for (const site of ['CROSS-SITE', 'Same-Site', 'cross-site']) {
      expect(
        await status([
          'GET /api/overview HTTP/1.1',
          `Host: 127.0.0.1:${port}`,
          `Sec-Fetch-Site: ${site}`,
        ]),
        site,
      ).toMatch(/ 403 /);
    }
    const navigate = ['Sec-Fetch-Site: cross-site', 'Sec-Fetch-Mode: navigate'];
    for (const path of ['/api/overview', '/api/calls', '/metrics', '/mcp', '/dashboard.js']) {
      expect(
        await status([
          `GET ${path} HTTP/1.1`,
          `Host: 127.0.0.1:${port}`,
          'Accept: text/event-stream',
          ...navigate,
        ]),
        path,
      ).toMatch(/ 403 /);
    }
    expect(await status(['GET / HTTP/1.1', `Host: 127.0.0.1:${port}`, ...navigate])).toMatch(
      / 200 /,
    );
  });

  it('answers a CORS preflight for an origin in --allowed-hosts, and only for it', async () => {
    const preflight = (origin: string) =>
      fetch(`${gw.url}/mcp`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, mcp-protocol-version, authorization',
        },
      });
    const allowed = await preflight('http://app.example:5174');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://app.example:5174');
    expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('mcp-session-id');
    for (const origin of ['http://evil.example', 'http://app.example:5175', 'null']) {
      const refused = await preflight(origin);
      expect(refused.status, origin).toBe(403);
      expect(refused.headers.get('access-control-allow-origin'), origin).toBeNull();
    }
    // The answer to the request itself is readable by the listed origin, its session id included.
    const init = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        origin: 'http://app.example:5174',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'page', version: '1' },
        },
      }),
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('access-control-allow-origin')).toBe('http://app.example:5174');
    expect(init.headers.get('access-control-expose-headers')).toContain('mcp-session-id');
    expect(init.headers.get('mcp-session-id')).toBeTruthy();
  });
});
