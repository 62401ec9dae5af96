import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureHttpServer, type FixtureHttpServer } from '@toolwire/testing/mcp';
import { startGateway, type TestGateway } from './helpers.js';

/** Sends `size` bytes of JSON the way a client streams an upload, and reads the answer. */
function post(
  url: string,
  size: number,
  chunked = false,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  const head = '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"';
  const tail = '"}}';
  const chunk = Buffer.alloc(64 * 1024, 'x');
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(chunked ? {} : { 'content-length': size }),
          ...headers,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (text: string) => (body += text));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    let left = size - head.length - tail.length;
    req.write(head);
    const pump = (): void => {
      while (left > 0) {
        const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= part.length;
        if (!req.write(part)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end(tail);
    };
    pump();
  });
}

describe('a request body over the limit', () => {
  let gw: TestGateway;
  let upstream: FixtureHttpServer;
  const bearer = { authorization: 'Bearer big-token' };
  beforeAll(async () => {
    upstream = await startFixtureHttpServer({ tools: ['echo'] });
    gw = await startGateway({
      mcpServers: { remote: { url: upstream.url } },
      auth: { tokens: [{ token: 'big-token', client: 'big' }] },
    });
  });
  afterAll(async () => {
    await gw.close();
    await upstream.close();
  });

  it('gets every early refusal read too (a bad token while the upload is still running)', async () => {
    for (const chunked of [false, true]) {
      const answer = await post(`${gw.url}/mcp`, 10 * 1024 * 1024, chunked, {
        authorization: 'Bearer wrong',
      });
      expect(answer.status).toBe(401);
    }
  });

  it('is answered 413 on the passthrough route', async () => {
    for (const chunked of [false, true]) {
      const answer = await post(`${gw.url}/servers/remote/mcp`, 10 * 1024 * 1024, chunked, bearer);
      expect(answer.status).toBe(413);
    }
  });

  it('is answered 413 with a JSON-RPC error the client can read (10 MB, no EPIPE)', async () => {
    for (const chunked of [false, true, false, true]) {
      const answer = await post(`${gw.url}/mcp`, 10 * 1024 * 1024, chunked, bearer);
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body).error.message).toContain('Request body over');
    }
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
  });

  it('is answered 413 through fetch as well', async () => {
    const big = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...bearer,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { pad: 'x'.repeat(10 * 1024 * 1024) },
      }),
    });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { message: string } }).error.message).toContain('over');
  });
});
