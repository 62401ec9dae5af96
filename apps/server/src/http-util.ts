import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthToken } from '@toolwire/forwarder';

/** An HTTP refusal with a JSON-RPC style error body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code = -32600,
    readonly headers: Record<string, string> = {},
    readonly data?: unknown,
  ) {
    super(message);
  }
}

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

export function sendError(res: ServerResponse, error: unknown): void {
  if (error instanceof HttpError) {
    sendJson(
      res,
      error.status,
      {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: error.code,
          message: error.message,
          ...(error.data !== undefined ? { data: error.data } : {}),
        },
      },
      error.headers,
    );
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  sendJson(res, 500, {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32603, message: `Internal error: ${message}` },
  });
}

/** Reads the whole body, refusing (413) past `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new HttpError(413, `Request body over ${limit} bytes`));
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
        reject(new HttpError(413, `Request body over ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const raw = await readBody(req, limit);
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw new HttpError(400, 'Parse error: the body is not valid JSON', -32700);
  }
}

export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]', '::1'];

function hostName(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
}

/** DNS-rebinding protection: `Host` and `Origin` must name an allowed host (403 otherwise). */
export function checkHost(req: IncomingMessage, allowed: readonly string[] | '*'): void {
  if (allowed === '*') return;
  const host = req.headers.host;
  if (host !== undefined && !allowed.includes(hostName(host).toLowerCase())) {
    throw new HttpError(
      403,
      `Forbidden: Host "${host}" is not allowed (DNS-rebinding protection; see --allowed-hosts)`,
    );
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== 'null') {
    let name: string;
    try {
      name = new URL(origin).hostname.toLowerCase();
    } catch {
      throw new HttpError(403, `Forbidden: Origin "${origin}" is not a URL`);
    }
    if (!allowed.includes(name) && !allowed.includes(`[${name}]`)) {
      throw new HttpError(
        403,
        `Forbidden: Origin "${origin}" is not allowed (DNS-rebinding protection)`,
      );
    }
  } else if (origin === 'null') {
    throw new HttpError(403, 'Forbidden: Origin "null" is not allowed (DNS-rebinding protection)');
  }
}

/** The bearer token's entry; throws 401 when `auth` is configured and the token is absent or unknown. */
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
      -32001,
      { 'www-authenticate': 'Bearer' },
    );
  }
  return token;
}

const longLived = new WeakSet<ServerResponse>();

/** Long-lived responses (SSE streams) are marked so shutdown and reload do not wait for them. */
export function markLongLived(res: ServerResponse): void {
  longLived.add(res);
}

export function isLongLived(res: ServerResponse): boolean {
  return longLived.has(res);
}
