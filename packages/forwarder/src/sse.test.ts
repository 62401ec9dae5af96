import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpUpstream } from './http-upstream.js';
import { MODERN_PROTOCOL } from './mcp-protocol.js';
import { formatSseEvent, parseSseText, readSseEvents } from './sse.js';

const text = 'costs 5 € — ok 😀';
const event = `id: 7\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } })}\n\n`;
const bytes = Buffer.from(event, 'utf8');

async function* chunks(...parts: Buffer[]): AsyncGenerator<Buffer> {
  for (const part of parts) yield part;
}

describe('readSseEvents', () => {
  it('keeps multi-byte characters whole when a chunk boundary falls at any byte', async () => {
    for (let at = 1; at < bytes.length; at++) {
      const events = [];
      for await (const e of readSseEvents(chunks(bytes.subarray(0, at), bytes.subarray(at))))
        events.push(e);
      expect(
        events.map((e) => JSON.parse(e.data).result.content[0].text),
        `split at ${at}`,
      ).toEqual([text]);
    }
  });
});

describe('parseSseText / formatSseEvent', () => {
  it('parses CRLF events, multi-line data and a last event without its blank line, and writes them back', () => {
    const events = parseSseText('event: a\r\ndata: 1\r\ndata: 2\r\n\r\n: comment\n\ndata: last');
    expect(events).toEqual([
      { id: undefined, event: 'a', data: '1\n2' },
      { id: undefined, event: undefined, data: 'last' },
    ]);
    expect(events.map(formatSseEvent).join('')).toBe(
      'event: a\ndata: 1\ndata: 2\n\ndata: last\n\n',
    );
  });
});

describe('HttpUpstream SSE answers', () => {
  let server: Server;
  let url: string;
  let splitAt = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const body: Buffer[] = [];
      req.on('data', (chunk: Buffer) => body.push(chunk));
      req.on('end', () => {
        const message = JSON.parse(Buffer.concat(body).toString('utf8')) as {
          id?: number;
          method: string;
        };
        if (message.method === 'server/discover') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: message.id,
              result: { supportedVersions: [MODERN_PROTOCOL], capabilities: { tools: {} } },
            }),
          );
          return;
        }
        const answer = Buffer.from(event.replace('"id":1', `"id":${message.id}`), 'utf8');
        res.socket?.setNoDelay(true);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // Two network writes, split inside the answer at the byte the test chose.
        res.write(answer.subarray(0, splitAt));
        void delay(5).then(() => res.end(answer.subarray(splitAt)));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('decodes an answer split across two writes at every byte of "5 €" and "😀"', async () => {
    const upstream = new HttpUpstream({ name: 'split', url, protocol: 'modern' });
    try {
      const first = bytes.indexOf(Buffer.from('5 €'));
      const last = bytes.indexOf(Buffer.from('😀')) + 4;
      for (splitAt = first; splitAt <= last; splitAt++) {
        const result = (await upstream.request('tools/call', { name: 't', arguments: {} })) as {
          content: Array<{ text: string }>;
        };
        expect(result.content[0]!.text, `split at byte ${splitAt}`).toBe(text);
      }
    } finally {
      await upstream.close();
    }
  });
});
