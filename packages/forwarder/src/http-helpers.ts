import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage } from '@toolwire/schema';
import type { AuthToken } from '@toolwire/config';
import {
  INTERNAL_ERROR,
  INVALID_REQUEST,
  PARSE_ERROR,
  UNAUTHORIZED,
  type JsonRpcError,
} from './json-rpc.js';

/** The host names a gateway accepts by default (DNS-rebinding protection). */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]', '::1'];

/** An HTTP refusal answered with a JSON-RPC error body (`{"jsonrpc":"2.0","id":null,"error":…}`). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: number = INVALID_REQUEST,
    readonly headers: Record<string, string> = {},
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'HttpError';
  }

  /** The JSON-RPC `error` member of the answer. */
  toError(): JsonRpcError {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
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

function hostName(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
}

/** Origins a gateway accepts besides its own (`'*'`: any, behind a proxy that checks them). */
export type AllowedOrigins = readonly string[] | '*';

/**
 * DNS-rebinding and cross-site protection. The `Host` header, when present, must name an allowed
 * host (compared without case). An `Origin` is accepted only when it is the gateway's own origin
 * (its host and port are the `Host` header's) or listed in `allowedOrigins` (as a full origin,
 * `host:port` or a host name); any other page, including one on another port of localhost, is
 * refused. Without an `Origin`, a browser's `Sec-Fetch-Site: cross-site | same-site` is refused
 * too, but for a top-level GET navigation. Refusals are 403 `HttpError`s; `setting` names the option that widens the lists.
 */
export function checkHost(
  req: IncomingMessage,
  allowed: readonly string[] | '*',
  setting = 'allowedHosts',
  allowedOrigins: AllowedOrigins = [],
): void {
  if (allowed === '*') return;
  const host = req.headers.host;
  if (host !== undefined && !allowed.includes(hostName(host).toLowerCase())) {
    throw new HttpError(
      403,
      `Forbidden: Host "${host}" is not allowed (DNS-rebinding protection; see ${setting})`,
    );
  }
  const origin = req.headers.origin;
  if (origin === undefined) {
    const site = req.headers['sec-fetch-site'];
    // A top-level GET navigation (a link followed) shows its answer to the user, not the page.
    const navigation = req.method === 'GET' && req.headers['sec-fetch-mode'] === 'navigate';
    if ((site === 'cross-site' || site === 'same-site') && !navigation) {
      throw new HttpError(
        403,
        `Forbidden: a ${site} request without an Origin is not allowed (cross-site protection)`,
      );
    }
    return;
  }
  if (origin === 'null') {
    throw new HttpError(403, 'Forbidden: Origin "null" is not allowed (cross-site protection)');
  }
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new HttpError(403, `Forbidden: Origin "${origin}" is not a URL`);
  }
  const own = host !== undefined && url.host === sameScheme(url, host);
  const listed =
    allowedOrigins === '*' ||
    [url.origin, url.host, url.hostname].some((name) =>
      allowedOrigins.includes(name.toLowerCase()),
    );
  if (!own && !listed) {
    throw new HttpError(
      403,
      `Forbidden: Origin "${origin}" is not this gateway's origin nor allowed (cross-site protection; see ${setting})`,
    );
  }
}

/** `host` (a `Host` header) as the host part of a URL of `origin`'s scheme (default port dropped). */
function sameScheme(origin: URL, host: string): string | undefined {
  try {
    return new URL(`${origin.protocol}//${host}`).host;
  } catch {
    return undefined;
  }
}

/** `application/json`, with or without parameters such as `charset`. */
export function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && value.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * A POST must carry `application/json`: other bodies (`text/plain`, forms) are what a page on
 * another origin can send without a CORS preflight. 415 otherwise, in the MCP SDK's words.
 */
export function checkJsonContentType(req: IncomingMessage): void {
  if (req.method === 'POST' && !isJsonContentType(req.headers['content-type'])) {
    throw new HttpError(
      415,
      'Unsupported Media Type: Content-Type must be application/json',
      -32000,
    );
  }
}

/**
 * The `Accept` of an MCP request, when given, must admit what the answer can be: JSON or an event
 * stream for POST, an event stream for GET. 406 otherwise (the MCP SDK's status).
 */
export function checkMcpAccept(req: IncomingMessage): void {
  const accept = req.headers.accept;
  if (accept === undefined || accept.trim() === '') return;
  const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  const admits = (type: string) =>
    types.some((t) => t === type || t === '*/*' || t === `${type.split('/')[0]}/*`);
  if (req.method === 'POST' && !admits('application/json') && !admits('text/event-stream')) {
    throw new HttpError(
      406,
      'Not Acceptable: Client must accept application/json or text/event-stream',
      -32000,
    );
  }
  if (req.method === 'GET' && !admits('text/event-stream')) {
    throw new HttpError(406, 'Not Acceptable: Client must accept text/event-stream', -32000);
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

/** A JSON-RPC notification sent while a request is being answered (progress, logging). */
export interface ProgressNotification {
  method: string;
  params?: Record<string, unknown>;
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
  produce: (notify: (notification: ProgressNotification) => void) => Promise<unknown>,
): Promise<void> {
  const headers = options.headers ?? {};
  const onClose = (): void => {
    if (!res.writableEnded) options.controller.abort();
  };
  res.on('close', onClose);
  const acceptsStream = String(req.headers.accept ?? '').includes('text/event-stream');
  let streaming = false;
  const notify = (notification: ProgressNotification): void => {
    if (!acceptsStream || res.writableEnded) return;
    if (!streaming) {
      streaming = true;
      res.writeHead(200, { ...EVENT_STREAM_HEADERS, ...headers });
    }
    res.write(sseMessage({ jsonrpc: '2.0', ...notification }));
  };
  try {
    const response = await produce(notify);
    if (streaming) res.end(sseMessage(response));
    else sendJson(res, options.status?.(response) ?? 200, response, headers);
  } finally {
    res.off('close', onClose);
  }
}
