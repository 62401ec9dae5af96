/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON-RPC answers */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacySession, modernCall, startGateway, type TestGateway } from './helpers.js';

// The gateway with no auth configured, as `npm start` runs it: what stops a page on another
// origin (another port of localhost too), slow clients and malformed requests.

/** One raw request, so that any header can be sent (fetch forbids Origin, Sec-Fetch-*). */
function raw(
  url: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const CALL = JSON.stringify({ name: 'calculate', arguments: { expression: '6*7' } });

describe('startServer HTTP defenses', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGateway(
      { mcpServers: {} },
      {
        allowedHosts: ['localhost', '127.0.0.1', 'app.example', 'http://localhost:5174'],
        headersTimeoutMs: 300,
        requestTimeoutMs: 600,
        keepAliveTimeoutMs: 200,
      },
    );
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('accepts only application/json bodies on POST (415 otherwise)', async () => {
    for (const path of ['/api/call', '/api/code', '/mcp', '/v1/chat/completions']) {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
        const answer = await raw(gw.url, path, {
          method: 'POST',
          headers: type ? { 'content-type': type } : {},
          body: path === '/api/code' ? '{"code":"return 1"}' : CALL,
        });
        expect(answer.status, `${path} ${type}`).toBe(415);
      }
    }
    const ok = await raw(gw.url, '/api/call', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: CALL,
    });
    expect(ok.status).toBe(200);
  });

  it("accepts an Origin only when it is the gateway's own or listed in allowedHosts", async () => {
    const post = (origin: string, extra: Record<string, string> = {}) =>
      raw(gw.url, '/api/call', {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin, ...extra },
        body: CALL,
      });
    const port = new URL(gw.url).port;
    for (const origin of [
      'http://localhost:5173',
      `http://localhost:${Number(port) + 1}`,
      'http://127.0.0.1:5173',
      'http://evil.example',
      'null',
    ]) {
      const answer = await post(origin);
      expect(answer.status, origin).toBe(403);
      expect(answer.body).toMatch(/Origin/);
    }
    expect((await post(gw.url)).status).toBe(200);
    expect((await post('http://app.example')).status).toBe(200);
    expect((await post('http://localhost:5174')).status).toBe(200);
  });

  it('refuses cross-site and same-site requests by Sec-Fetch-Site when no Origin is sent', async () => {
    for (const site of ['cross-site', 'same-site']) {
      const answer = await raw(gw.url, '/api/overview', { headers: { 'sec-fetch-site': site } });
      expect(answer.status, site).toBe(403);
    }
    for (const site of ['same-origin', 'none']) {
      expect(
        (await raw(gw.url, '/api/overview', { headers: { 'sec-fetch-site': site } })).status,
      ).toBe(200);
    }
    // A link from another site may still open the page shell, which holds no data.
    const page = await raw(gw.url, '/', {
      headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' },
    });
    expect(page.status).toBe(200);
  });

  it('answers a malformed percent-encoding in the path with 400', async () => {
    for (const path of ['/servers/%E0%A4%A/mcp', '/servers/%/mcp']) {
      const answer = await raw(gw.url, path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      expect(answer.status, path).toBe(400);
      expect(answer.body).toMatch(/percent-encoding/);
    }
  });

  it('answers JSON-RPC ids other than strings and integers with -32600', async () => {
    const session = await legacySession(`${gw.url}/mcp`);
    for (const id of [null, 1.5, true, { a: 1 }, [1]]) {
      for (const headers of [
        { 'mcp-session-id': session.sessionId! },
        {
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/list',
        },
      ]) {
        const res = await fetch(`${gw.url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: {} }),
        });
        const body = (await res.json()) as any;
        expect(res.status, JSON.stringify(id)).toBe(400);
        expect(body.error.code, JSON.stringify(id)).toBe(-32600);
        expect(body.id).toBeNull();
      }
    }
    const good = await modernCall(`${gw.url}/mcp`, 'tools/list');
    expect(good.body.result.tools.length).toBeGreaterThan(0);
  });

  it('answers an Accept that admits neither JSON nor an event stream with 406', async () => {
    const answer = await raw(gw.url, '/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/html' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(answer.status).toBe(406);
  });

  it('closes slow connections: headers, bodies and idle keep-alive', async () => {
    const target = new URL(gw.url);
    const open = (first: string): Promise<Socket> =>
      new Promise((resolve, reject) => {
        const socket = connect(Number(target.port), target.hostname, () => {
          socket.write(first);
          resolve(socket);
        });
        socket.on('error', reject);
        socket.resume();
      });
    const closed = (socket: Socket) =>
      new Promise<void>((resolve) => {
        if (socket.destroyed) resolve();
        else socket.once('close', () => resolve());
      });
    // 80 clients that never finish their headers, and 80 that never finish their bodies.
    const slowHeaders = await Promise.all(
      Array.from({ length: 80 }, () =>
        open('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '),
      ),
    );
    const slowBodies = await Promise.all(
      Array.from({ length: 80 }, () =>
        open(
          'POST /api/call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na',
        ),
      ),
    );
    await Promise.all([...slowHeaders, ...slowBodies].map(closed));
    // A finished request's keep-alive connection is closed once idle.
    const idle = await open('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await closed(idle);
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
  });
});

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) =>
  existsSync(path),
);

describe.skipIf(!CHROMIUM)(
  `startServer in headless Chromium, attacked from another local origin${CHROMIUM ? '' : ' (skipped: Debian package "chromium" is not installed)'}`,
  () => {
    let gw: TestGateway;
    let attacker: Server;
    let attackerUrl: string;
    let browser: BrowserContext;
    let profile: string;

    beforeAll(async () => {
      gw = await startGateway({ mcpServers: {} });
      // The attacker's page: another port of the same machine, i.e. another origin.
      attacker = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>hi</p>');
      });
      await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', () => resolve()));
      const address = attacker.address() as { port: number };
      attackerUrl = `http://localhost:${address.port}/`;
      profile = mkdtempSync(join(tmpdir(), 'toolwire-chromium-'));
      browser = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
        timeout: 30_000,
      });
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await gw?.close();
      await new Promise<void>((resolve) => attacker?.close(() => resolve()));
      if (profile) rmSync(profile, { recursive: true, force: true });
    });

    it('refuses every request of a page on another origin: no call, no code, no data', async () => {
      const page = await browser.newPage();
      await page.goto(attackerUrl);
      const gateway = gw.url.replace('127.0.0.1', 'localhost');
      const outcome = await page.evaluate(async (base) => {
        const seen: Record<string, string> = {};
        const attempt = async (name: string, url: string, init: RequestInit) => {
          try {
            const res = await fetch(url, init);
            seen[name] = res.type === 'opaque' ? 'opaque' : `${res.status} ${await res.text()}`;
          } catch (error) {
            seen[name] = `blocked: ${String(error)}`;
          }
        };
        const call = JSON.stringify({ name: 'calculate', arguments: { expression: '6*7' } });
        // "Simple" requests: no preflight, the browser sends them whatever the answer.
        await attempt('call text/plain', `${base}/api/call`, {
          method: 'POST',
          mode: 'no-cors',
          headers: { 'content-type': 'text/plain' },
          body: call,
        });
        await attempt('code text/plain', `${base}/api/code`, {
          method: 'POST',
          mode: 'no-cors',
          headers: { 'content-type': 'text/plain' },
          body: JSON.stringify({ code: 'return 6*7' }),
        });
        await attempt('mcp text/plain', `${base}/mcp`, {
          method: 'POST',
          mode: 'no-cors',
          headers: { 'content-type': 'text/plain' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'calculate', arguments: { expression: '6*7' } },
          }),
        });
        // Requests that need a preflight, and a plain read.
        await attempt('call json', `${base}/api/call`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: call,
        });
        await attempt('overview', `${base}/api/overview`, {});
        return seen;
      }, gateway);
      // Nothing was readable by the page...
      for (const [name, result] of Object.entries(outcome)) {
        expect(result, name).toMatch(/^(opaque|blocked)/);
      }
      // ...and nothing ran: the gateway refused each request (403 or 415) and logged no call.
      const calls = (await (await fetch(`${gw.url}/api/calls`)).json()) as any;
      expect(calls.calls ?? calls).toHaveLength(0);
      // The same requests from the gateway's own origin do work (the check is not a blanket no).
      const own = await browser.newPage();
      await own.goto(`${gw.url}/`);
      const status = await own.evaluate(async () => {
        const res = await fetch('/api/call', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'calculate', arguments: { expression: '6*7' } }),
        });
        return res.status;
      });
      expect(status).toBe(200);
    });
  },
);
