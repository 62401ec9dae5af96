import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicWire } from './anthropic-wire.js';
import {
  DEFAULT_PARTIAL_ANSWER,
  isAnswer,
  type FakeAnswer,
  type FakeProviderKind,
  type FakeTurn,
  type RecordedRequest,
  type RenderContext,
  type StaticFakeTurn,
  type WireRenderer,
} from './fake-turn.js';
import { googleWire } from './google-wire.js';
import { ollamaWire } from './ollama-wire.js';
import { openaiResponsesWire } from './openai-responses-wire.js';
import { openaiWire } from './openai-wire.js';

const RENDERERS: Record<FakeProviderKind, WireRenderer> = {
  openai: openaiWire,
  'openai-responses': openaiResponsesWire,
  anthropic: anthropicWire,
  ollama: ollamaWire,
  google: googleWire,
};

export interface FakeProvider {
  /**
   * The server's origin, `http://127.0.0.1:<port>`, without a trailing slash. Give it to the SDKs as:
   * OpenAI (both APIs) `new OpenAI({ baseURL: fake.url + '/v1' })`, Anthropic
   * `new Anthropic({ baseURL: fake.url })`, Ollama `new Ollama({ host: fake.url })`, Google
   * `new GoogleGenAI({ apiKey, httpOptions: { baseUrl: fake.url } })`.
   */
  readonly url: string;
  readonly provider: FakeProviderKind;
  /** Every request received, in order (also those answered with an error). */
  readonly requests: RecordedRequest[];
  /** Appends turns; each request consumes the next one. */
  push(...turns: FakeTurn[]): void;
  /** How many pushed turns no request has consumed yet. */
  readonly pendingTurns: number;
  /** Forgets unconsumed turns and recorded requests (between tests). */
  reset(): void;
  /** The body of the most recent request (throws when there is none). */
  lastBody(): Record<string, unknown>;
  /** Stops the server, dropping open connections (hanging and stalled answers included). */
  close(): Promise<void>;
}

export interface StartFakeProviderOptions {
  provider: FakeProviderKind;
  turns?: FakeTurn[];
  /**
   * Answers every request no scripted turn is left for, instead of the 500 (a bench's endless
   * conversation: a function turn that answers from the request).
   */
  fallbackTurn?: FakeTurn;
}

/**
 * Starts a local HTTP server (127.0.0.1, random port) that answers as OpenAI Chat Completions
 * (`POST /v1/chat/completions`), OpenAI Responses (`POST /v1/responses`), Anthropic Messages
 * (`POST /v1/messages`), Ollama (`POST /api/chat`) or the Gemini API
 * (`POST /v1beta/models/<model>:generateContent` and `:streamGenerateContent?alt=sse`) would, from
 * scripted turns: JSON, or SSE / NDJSON when the request asks for a stream. Turns are consumed in order, one per request; a request with no turn left gets
 * `fallbackTurn`, or else a 500 whose message says so.
 */
export async function startFakeProvider(options: StartFakeProviderOptions): Promise<FakeProvider> {
  const renderer = RENDERERS[options.provider];
  if (!renderer)
    throw new Error(
      `startFakeProvider: provider must be one of ${Object.keys(RENDERERS).join(', ')} (got ${JSON.stringify(options.provider)})`,
    );
  const turns: FakeTurn[] = [...(options.turns ?? [])];
  const requests: RecordedRequest[] = [];
  let sequence = 0;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, renderer.errorBody(500, `fake provider failed: ${String(error)}`));
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let body: unknown = text;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined)
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path, headers, body };
    requests.push(recorded);

    const served = renderer.matches ? renderer.matches(path) : path === renderer.path;
    if (req.method !== 'POST' || !served) {
      sendJson(
        res,
        404,
        renderer.errorBody(
          404,
          `fake ${options.provider} provider: no route ${req.method} ${path} (it serves POST ${renderer.path})`,
        ),
      );
      return;
    }
    const next = turns.shift() ?? options.fallbackTurn;
    if (next === undefined) {
      sendJson(
        res,
        500,
        renderer.errorBody(
          500,
          `fake ${options.provider} provider: no scripted turn left for request #${requests.length} (push() more turns)`,
        ),
      );
      return;
    }
    sequence++;
    const turn: StaticFakeTurn = typeof next === 'function' ? next(recorded) : next;
    const jsonBody =
      body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    const context: RenderContext = {
      model:
        renderer.modelOf?.(path) ??
        (typeof jsonBody.model === 'string' ? jsonBody.model : 'fake-model'),
      sequence,
      body: jsonBody,
    };
    const stream = renderer.isStream(jsonBody, req.url ?? '/');

    if ('error' in turn) {
      const message = `fake ${options.provider} error ${turn.error.status}`;
      const errorBody = turn.error.body ?? renderer.errorBody(turn.error.status, message);
      const payload = typeof errorBody === 'string' ? errorBody : JSON.stringify(errorBody);
      res.writeHead(turn.error.status, {
        'content-type': typeof errorBody === 'string' ? 'text/plain' : 'application/json',
        ...(turn.error.headers ?? {}),
      });
      res.end(payload);
      return;
    }
    if ('raw' in turn) {
      res.writeHead(200, { 'content-type': turn.raw.contentType });
      res.end(turn.raw.body);
      return;
    }
    if ('hang' in turn) {
      // Never answer; close() or the client's abort ends the connection.
      return;
    }
    if ('dropAfter' in turn || 'stallAfter' in turn) {
      const answer = turn.turn ?? DEFAULT_PARTIAL_ANSWER;
      const limit = 'dropAfter' in turn ? turn.dropAfter : turn.stallAfter;
      const { contentType, chunks } = renderChunks(answer, context, stream);
      res.writeHead(200, { 'content-type': contentType });
      for (const chunk of chunks.slice(0, limit)) await write(res, chunk);
      if ('dropAfter' in turn) res.socket?.destroy();
      return;
    }
    if (!isAnswer(turn)) throw new Error(`unknown fake turn ${JSON.stringify(turn)}`);
    if (!stream) {
      sendJson(res, 200, renderer.json(turn, context));
      return;
    }
    const { contentType, chunks } = renderer.stream(turn, context);
    res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
    for (const chunk of chunks) await write(res, chunk);
    res.end();
  }

  // A non-streamed answer cut short is its JSON text split in a few pieces.
  function renderChunks(
    answer: FakeAnswer,
    context: RenderContext,
    stream: boolean,
  ): { contentType: string; chunks: string[] } {
    if (stream) return renderer.stream(answer, context);
    const text = JSON.stringify(renderer.json(answer, context));
    const size = Math.max(1, Math.ceil(text.length / 4));
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
    return { contentType: 'application/json', chunks };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    provider: options.provider,
    requests,
    push: (...more) => {
      turns.push(...more);
    },
    get pendingTurns() {
      return turns.length;
    },
    reset() {
      turns.length = 0;
      requests.length = 0;
    },
    lastBody() {
      const last = requests.at(-1);
      if (!last) throw new Error(`fake ${options.provider} provider: no request received yet`);
      return last.body as Record<string, unknown>;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function write(res: ServerResponse, chunk: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) {
      resolve();
      return;
    }
    res.write(chunk, () => resolve());
  });
}
