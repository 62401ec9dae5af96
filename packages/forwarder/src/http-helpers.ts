import type { IncomingMessage, ServerResponse } from 'node:http';
import { ToolwireError, errorMessage } from '@toolwire/schema';
import type { AuthToken } from '@toolwire/config';
import {
  INTERNAL_ERROR,
  INVALID_REQUEST,
  PARSE_ERROR,
  UNAUTHORIZED,
  type JsonRpcError,
} from './json-rpc.js';

/**
 * An HTTP refusal answered with a JSON-RPC error body (`{"jsonrpc":"2.0","id":null,"error":…}`):
 * `status` is the HTTP status, `rpcCode` the JSON-RPC code of the body.
 */
export class HttpError extends ToolwireError {
  readonly status: number;
  readonly rpcCode: number;
  readonly headers: Record<string, string>;
  readonly data: unknown;
  constructor(
    status: number,
    message: string,
    rpcCode: number = INVALID_REQUEST,
    headers: Record<string, string> = {},
    data?: unknown,
  ) {
    super(`http_${status}`, { message });
    this.name = 'HttpError';
    this.status = status;
    this.rpcCode = rpcCode;
    this.headers = headers;
    this.data = data;
  }

  /** The JSON-RPC `error` member of the answer. */
  toError(): JsonRpcError {
    return this.data === undefined
      ? { code: this.rpcCode, message: this.message }
      : { code: this.rpcCode, message: this.message, data: this.data };
  }
}

/** Sends `body` as JSON; when headers are already out (a stream), only ends the response. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/**
 * Answers a failed request: an `HttpError` with its status, code and headers, anything else as
 * 500 with JSON-RPC `-32603 Internal error: <message>`.
 */
export function sendHttpError(res: ServerResponse, error: unknown): void {
  if (error instanceof HttpError) {
    sendJson(
      res,
      error.status,
      { jsonrpc: '2.0', id: null, error: error.toError() },
      error.headers,
    );
    return;
  }
  sendJson(res, 500, {
    jsonrpc: '2.0',
    id: null,
    error: { code: INTERNAL_ERROR, message: `Internal error: ${errorMessage(error)}` },
  });
}

/**
 * Reads the whole request body. Past `limit` bytes (declared in `Content-Length` or counted) it
 * rejects with a 413 `HttpError` and drains the rest, so that the refusal can still be answered.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const tooLarge = (): HttpError => new HttpError(413, `Request body over ${limit} bytes`);
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(tooLarge());
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

/** Reads and parses a JSON body; invalid JSON is a 400 `HttpError` with code `-32700`. */
export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const raw = await readBody(req, limit);
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw new HttpError(400, 'Parse error: the body is not valid JSON', PARSE_ERROR);
  }
}

/** `decodeURIComponent` whose failure (a malformed percent-encoding) is a 400 `HttpError`. */
export function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, `Bad Request: malformed percent-encoding in "${segment}"`);
  }
}

/**
 * The entry of the request's bearer token. With no tokens configured every request passes
 * (`undefined`); otherwise an absent or unknown token is a 401 `HttpError` with
 * `WWW-Authenticate: Bearer`.
 */
export function authenticate(
  req: IncomingMessage,
  tokens: ReadonlyMap<string, AuthToken>,
): AuthToken | undefined {
  if (tokens.size === 0) return undefined;
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(.+)$/i.exec(header) : null;
  const token = match ? tokens.get(match[1]!.trim()) : undefined;
  if (!token) {
    throw new HttpError(
      401,
      match
        ? 'Unauthorized: unknown bearer token (auth.tokens)'
        : 'Unauthorized: an Authorization: Bearer <token> header is required (auth)',
      UNAUTHORIZED,
      { 'www-authenticate': 'Bearer' },
    );
  }
  return token;
}

/** The response headers that open a server-sent-event stream. */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
};

/** One SSE `message` event carrying `payload` as JSON. */
export function sseMessage(payload: unknown): string {
  return `event: message\ndata: ${JSON.stringify(payload)}\n\n`;
}

/**
 * A JSON-RPC message sent while a request is being answered: a notification (progress, logging),
 * or a server-to-client request (with an `id`) the gateway bridges for an upstream.
 */
export interface ProgressNotification {
  method: string;
  params?: Record<string, unknown>;
  id?: string | number;
}

export interface RespondWithProgressOptions {
  /** Aborted when the client goes away before the answer is complete. */
  controller: AbortController;
  /** Headers for the answer (JSON or stream), e.g. `Mcp-Session-Id`. */
  headers?: Record<string, string>;
  /** The HTTP status of a JSON answer. Default 200. */
  status?: (response: unknown) => number;
}

/**
 * Answers one JSON-RPC request. `produce` gets a `notify` for notifications that come before the
 * result: the first one turns the answer into an SSE stream (when the client accepts
 * `text/event-stream`; otherwise notifications are dropped), which the result then ends. Without
 * notifications the result goes out as plain JSON.
 */
export async function respondWithProgress(
  req: IncomingMessage,
  res: ServerResponse,
  options: RespondWithProgressOptions,
  produce: (notify: (notification: ProgressNotification) => boolean) => Promise<unknown>,
): Promise<void> {
  const headers = options.headers ?? {};
  const onClose = (): void => {
    if (!res.writableEnded) options.controller.abort();
  };
  res.on('close', onClose);
  const acceptsStream = String(req.headers.accept ?? '').includes('text/event-stream');
  let streaming = false;
  const notify = (notification: ProgressNotification): boolean => {
    if (!acceptsStream || res.writableEnded) return false;
    if (!streaming) {
      streaming = true;
      res.writeHead(200, { ...EVENT_STREAM_HEADERS, ...headers });
    }
    res.write(sseMessage({ jsonrpc: '2.0', ...notification }));
    return true;
  };
  try {
    const response = await produce(notify);
    if (streaming) res.end(sseMessage(response));
    else sendJson(res, options.status?.(response) ?? 200, response, headers);
  } finally {
    res.off('close', onClose);
  }
}
