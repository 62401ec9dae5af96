import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HttpError,
  authenticate,
  readBody,
  readJson,
  respondWithProgress,
  sendHttpError,
  sendJson,
  sseMessage,
} from './http-helpers.js';
import { checkHost } from './http-guard.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

const servers: Array<{ close: () => void }> = [];
afterEach(() => {
  while (servers.length > 0) servers.pop()!.close();
});

/** A loopback server whose handler failures are answered with `sendHttpError`. */
async function serve(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    void (async () => handler(req, res))().catch((error: unknown) => sendHttpError(res, error));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({ close: () => server.close() });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A raw request (fetch would refuse some of the headers these tests send). */
function send(
  url: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: options.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(options.body ?? '');
  });
}

const rpcError = (answer: Answer): unknown => (JSON.parse(answer.text) as { error: unknown }).error;

describe('sendJson', () => {
  it('sends JSON with its length and extra headers', async () => {
    const url = await serve((_req, res) => sendJson(res, 201, { ok: 'ü' }, { 'x-extra': '1' }));
    const answer = await send(url);
    expect(answer.status).toBe(201);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength('{"ok":"ü"}')));
    expect(answer.headers['x-extra']).toBe('1');
    expect(JSON.parse(answer.text)).toEqual({ ok: 'ü' });
  });

  it('only ends a response whose headers are already out', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
      sendJson(res, 500, { never: true });
    });
    expect((await send(url)).text).toBe('partial');
  });
});

describe('sendHttpError', () => {
  it('answers an HttpError with its status, code, data and headers', async () => {
    const url = await serve(() => {
      throw new HttpError(409, 'Conflict here', -32010, { 'retry-after': '3' }, { why: 'x' });
    });
    const answer = await send(url);
    expect(answer.status).toBe(409);
    expect(answer.headers['retry-after']).toBe('3');
    expect(JSON.parse(answer.text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32010, message: 'Conflict here', data: { why: 'x' } },
    });
  });

  it('answers anything else as a 500 internal error with its message', async () => {
    const url = await serve(() => {
      throw new Error('disk on fire');
    });
    const answer = await send(url);
    expect(answer.status).toBe(500);
    expect(rpcError(answer)).toEqual({ code: -32603, message: 'Internal error: disk on fire' });
  });
});

describe('readBody', () => {
  it('reads the whole body', async () => {
    const url = await serve(async (req, res) => {
      const body = await readBody(req, 1024);
      sendJson(res, 200, { length: body.length });
    });
    expect(JSON.parse((await send(url, { body: 'x'.repeat(700) })).text)).toEqual({ length: 700 });
  });

  it('refuses a body over the limit with 413, declared or streamed', async () => {
    const url = await serve(async (req, res) => {
      await readBody(req, 10);
      sendJson(res, 200, {});
    });
    const declared = await send(url, { body: 'x'.repeat(50) });
    expect(declared.status).toBe(413);
    expect(rpcError(declared)).toEqual({ code: -32600, message: 'Request body over 10 bytes' });
    const chunked = await send(url, {
      body: 'x'.repeat(50),
      headers: { 'transfer-encoding': 'chunked' },
    });
    expect(chunked.status).toBe(413);
  });
});

describe('readJson', () => {
  it('parses JSON and refuses anything else with a parse error', async () => {
    const url = await serve(async (req, res) => sendJson(res, 200, await readJson(req, 1024)));
    expect(JSON.parse((await send(url, { body: '{"a":[1]}' })).text)).toEqual({ a: [1] });
    const bad = await send(url, { body: '{nope' });
    expect(bad.status).toBe(400);
    expect(rpcError(bad)).toEqual({
      code: -32700,
      message: 'Parse error: the body is not valid JSON',
    });
  });
});

describe('checkHost', () => {
  const allowed = ['localhost', '127.0.0.1', '[::1]'];
  const req = (headers: Record<string, string>): IncomingMessage =>
    ({ headers }) as unknown as IncomingMessage;

  it('accepts allowed hosts and origins, with ports and in any case', () => {
    expect(() => checkHost(req({ host: 'LOCALHOST:8080' }), allowed)).not.toThrow();
    expect(() =>
      checkHost(req({ host: '[::1]:80', origin: 'http://[::1]:80' }), allowed),
    ).not.toThrow();
    expect(() =>
      checkHost(req({ host: 'localhost:8080', origin: 'http://LOCALHOST:8080' }), allowed),
    ).not.toThrow();
    expect(() =>
      checkHost(req({ host: '127.0.0.1', origin: 'http://app.example' }), allowed, 'x', [
        'app.example',
      ]),
    ).not.toThrow();
    expect(() => checkHost(req({ host: 'evil.example' }), '*')).not.toThrow();
  });

  it("refuses an Origin that is not the gateway's own, another port of localhost included", () => {
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:8081']) {
      expect(() => checkHost(req({ host: '127.0.0.1:8080', origin }), allowed)).toThrow(
        /not this gateway's origin/,
      );
    }
  });

  it('refuses a cross-site request without an Origin, in any case, but for a GET navigation to the page shell', () => {
    const site = (headers: Record<string, string>, method = 'GET') =>
      ({ headers: { host: 'localhost', ...headers }, method }) as unknown as IncomingMessage;
    expect(() => checkHost(site({ 'sec-fetch-site': 'cross-site' }), allowed)).toThrow(
      /cross-site/,
    );
    for (const value of ['CROSS-SITE', 'Same-Site', ' cross-site ', 'cross-site, same-origin'])
      expect(() => checkHost(site({ 'sec-fetch-site': value }), allowed), value).toThrow();
    expect(() => checkHost(site({ 'sec-fetch-site': 'same-site' }, 'POST'), allowed)).toThrow();
    const navigation = site({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'NAVIGATE' });
    // Only the page shell may be opened by a link from another site; every other route refuses.
    expect(() => checkHost(navigation, allowed)).toThrow(/cross-site/);
    expect(() => checkHost(navigation, allowed, 'x', [], true)).not.toThrow();
    expect(() => checkHost(site({ 'sec-fetch-site': 'same-origin' }), allowed)).not.toThrow();
    expect(() => checkHost(site({ 'sec-fetch-site': 'NONE' }), allowed)).not.toThrow();
  });

  it('refuses a Host that is not exactly one host[:port]', () => {
    for (const host of [
      '[::1]evil.com',
      '127.0.0.1:8080, evil.com',
      'localhost:8080 evil.com',
      'localhost:99999',
      'localhost:0',
      'localhost:',
      'local host',
      '::1',
    ]) {
      let caught: unknown;
      try {
        checkHost(req({ host }), allowed);
      } catch (error) {
        caught = error;
      }
      expect(caught, host).toBeInstanceOf(HttpError);
      expect((caught as HttpError).status, host).toBe(400);
    }
    const twice = {
      headers: { host: 'localhost' },
      headersDistinct: { host: ['localhost', 'evil.example'] },
    } as unknown as IncomingMessage;
    expect(() => checkHost(twice, allowed)).toThrow(/malformed Host/);
  });

  it('refuses a foreign Host naming the setting that widens the list', () => {
    expect(() => checkHost(req({ host: 'evil.example:80' }), allowed, '--allowed-hosts')).toThrow(
      'Forbidden: Host "evil.example:80" is not allowed (DNS-rebinding protection; see --allowed-hosts)',
    );
  });

  it('refuses a foreign, null or malformed Origin with 403', () => {
    for (const origin of ['http://evil.example', 'null', 'not a url']) {
      let caught: unknown;
      try {
        checkHost(req({ host: 'localhost', origin }), allowed);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(HttpError);
      expect((caught as HttpError).status).toBe(403);
      expect((caught as HttpError).message).toContain(`Origin "${origin}"`);
    }
  });
});

describe('authenticate', () => {
  const tokens = new Map([['s3cret', { token: 's3cret', client: 'ci' }]]);
  const req = (authorization?: string): IncomingMessage =>
    ({ headers: authorization ? { authorization } : {} }) as unknown as IncomingMessage;

  it('lets everything through when no tokens are configured', () => {
    expect(authenticate(req(), new Map())).toBeUndefined();
  });

  it('returns the entry of a known bearer token', () => {
    expect(authenticate(req('Bearer s3cret'), tokens)).toEqual({ token: 's3cret', client: 'ci' });
  });

  it('refuses a missing or unknown token with 401 and WWW-Authenticate', () => {
    for (const [header, message] of [
      [undefined, 'an Authorization: Bearer <token> header is required'],
      ['Bearer wrong', 'unknown bearer token'],
    ] as const) {
      let caught: unknown;
      try {
        authenticate(req(header), tokens);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(HttpError);
      const error = caught as HttpError;
      expect([error.status, error.rpcCode, error.headers]).toEqual([
        401,
        -32001,
        { 'www-authenticate': 'Bearer' },
      ]);
      expect(error.message).toContain(message);
    }
  });
});

describe('respondWithProgress', () => {
  const progress = { method: 'notifications/progress', params: { progress: 1 } };
  const result = { jsonrpc: '2.0', id: 1, result: { done: true } };

  async function route(withNotification: boolean, status?: number): Promise<string> {
    return serve(async (req, res) => {
      await respondWithProgress(
        req,
        res,
        {
          controller: new AbortController(),
          headers: { 'mcp-session-id': 'abc' },
          ...(status === undefined ? {} : { status: () => status }),
        },
        async (notify) => {
          if (withNotification) notify(progress);
          return result;
        },
      );
    });
  }

  it('upgrades to an SSE stream when a notification comes before the result', async () => {
    const answer = await send(await route(true), {
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(answer.headers['content-type']).toBe('text/event-stream');
    expect(answer.headers['mcp-session-id']).toBe('abc');
    expect(answer.text).toBe(sseMessage({ jsonrpc: '2.0', ...progress }) + sseMessage(result));
  });

  it('answers plain JSON with the chosen status when the client takes no stream', async () => {
    const answer = await send(await route(true, 404), { headers: { accept: 'application/json' } });
    expect(answer.status).toBe(404);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['mcp-session-id']).toBe('abc');
    expect(JSON.parse(answer.text)).toEqual(result);
  });

  it('aborts the work when the client goes away', async () => {
    const controller = new AbortController();
    const aborted = new Promise<void>((resolve) =>
      controller.signal.addEventListener('abort', () => resolve()),
    );
    let started!: () => void;
    const working = new Promise<void>((resolve) => (started = resolve));
    const url = await serve(async (req, res) => {
      await respondWithProgress(req, res, { controller }, async () => {
        started();
        await aborted;
        return result;
      });
    });
    const req = request(url, { method: 'POST' });
    req.on('error', () => undefined);
    req.end('{}');
    await working;
    expect(controller.signal.aborted).toBe(false);
    req.destroy();
    await aborted;
    expect(controller.signal.aborted).toBe(true);
  });
});
