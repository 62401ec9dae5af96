import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError, sendHttpError } from './http-helpers.js';

/** The host names a gateway accepts by default (DNS-rebinding protection). */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]', '::1'];

/**
 * The host name of a `Host` header, lowercased (an IPv6 literal with its brackets), when the header
 * is exactly `host[:port]` (RFC 9110: a name, an IPv4 address or a bracketed IPv6 literal, then an
 * optional port 1-65535); `undefined` for anything else (`[::1]evil.com`, `a:1, b`, `a:99999`).
 */
function parseHostHeader(host: string): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?)(?::(\d{1,5}))?$/i.exec(
    host,
  );
  if (!match) return undefined;
  if (match[2] !== undefined) {
    const port = Number(match[2]);
    if (port < 1 || port > 65_535) return undefined;
  }
  return match[1]!.toLowerCase();
}

/** A fetch-metadata header's value, compared without case or surrounding space. */
function fetchMetadata(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value.trim().toLowerCase() : undefined;
}

/** Origins a gateway accepts besides its own (`'*'`: any, behind a proxy that checks them). */
export type AllowedOrigins = readonly string[] | '*';

/**
 * DNS-rebinding and cross-site protection. The `Host` header, when present, must be one
 * well-formed `host[:port]` naming an allowed host (compared without case). An `Origin` is
 * accepted only when it is the gateway's own origin (its host and port are the `Host` header's)
 * or listed in `allowedOrigins` (as a full origin, `host:port` or a host name); any other page,
 * including one on another port of localhost, is refused. Without an `Origin`, a browser's
 * `Sec-Fetch-Site` must say `same-origin` or `none` (compared without case: `CROSS-SITE` is
 * `cross-site`), but for a top-level GET navigation to the page shell (`pageShell`), which holds
 * no data. Refusals are 403 `HttpError`s (400 for a malformed `Host`); `setting` names the option
 * that widens the lists.
 */
export function checkHost(
  req: IncomingMessage,
  allowed: readonly string[] | '*',
  setting = 'allowedHosts',
  allowedOrigins: AllowedOrigins = [],
  pageShell = false,
): void {
  if (allowed === '*') return;
  const host = req.headers.host;
  if (host !== undefined) {
    // Two Host headers (Node keeps the first in `headers`) are as malformed as one bad one.
    const name = (req.headersDistinct?.host?.length ?? 1) === 1 ? parseHostHeader(host) : undefined;
    if (name === undefined) {
      throw new HttpError(400, `Bad Request: malformed Host header "${host}"`);
    }
    if (!allowed.includes(name)) {
      throw new HttpError(
        403,
        `Forbidden: Host "${host}" is not allowed (DNS-rebinding protection; see ${setting})`,
      );
    }
  }
  const origin = req.headers.origin;
  if (origin === undefined) {
    const site = fetchMetadata(req, 'sec-fetch-site');
    // A top-level GET navigation (a link followed) to the page shell shows it to the user, not to
    // the page that linked it; every other route holds data or acts.
    const navigation =
      pageShell && req.method === 'GET' && fetchMetadata(req, 'sec-fetch-mode') === 'navigate';
    if (site !== undefined && site !== 'same-origin' && site !== 'none' && !navigation) {
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
  const url = originUrl(origin);
  const own = host !== undefined && url.host === sameScheme(url, host);
  if (!own && !isListedOrigin(url, allowedOrigins)) {
    throw new HttpError(
      403,
      `Forbidden: Origin "${origin}" is not this gateway's origin nor allowed (cross-site protection; see ${setting})`,
    );
  }
}

function originUrl(origin: string): URL {
  try {
    return new URL(origin);
  } catch {
    throw new HttpError(403, `Forbidden: Origin "${origin}" is not a URL`);
  }
}

/** `origin` is listed in `allowedOrigins` (as a full origin, `host:port` or a host name). */
function isListedOrigin(url: URL, allowedOrigins: AllowedOrigins): boolean {
  return (
    allowedOrigins === '*' ||
    [url.origin, url.host, url.hostname].some((name) => allowedOrigins.includes(name.toLowerCase()))
  );
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
function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && value.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * A POST must carry `application/json`: other bodies (`text/plain`, forms) are what a page on
 * another origin can send without a CORS preflight. 415 otherwise, in the MCP SDK's words.
 */
function checkJsonContentType(req: IncomingMessage): void {
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
function checkMcpAccept(req: IncomingMessage): void {
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

export interface HttpGuardOptions {
  /** Host names accepted in `Host` (DNS-rebinding protection); `'*'` accepts any. */
  allowedHosts: readonly string[] | '*';
  /** Origins accepted besides the gateway's own. */
  allowedOrigins?: AllowedOrigins;
  /** The setting that widens the lists, named in refusals (default `allowedHosts`). */
  setting?: string;
}

/** What a route is, for the checks: an MCP endpoint (`Accept`), the dashboard's page shell. */
interface GuardedRoute {
  mcp?: boolean;
  /** The page shell: a top-level navigation from another site may open it (it holds no data). */
  pageShell?: boolean;
}

/** The request headers a browser client of the gateway sends (and a preflight asks for). */
const CORS_REQUEST_HEADERS =
  'authorization, content-type, accept, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id, traceparent, tracestate';
/** The answer headers a browser client must read (the session, the revision, auth challenges). */
const CORS_EXPOSED_HEADERS = 'mcp-session-id, mcp-protocol-version, www-authenticate, retry-after';

/**
 * The checks every request passes once, before its route runs: `Host`, `Origin` and fetch metadata
 * (`checkHost`), and a JSON `Content-Type` on POSTs (`checkJsonContentType`); MCP routes also
 * check `Accept` (`checkMcpAccept`). Refusals throw `HttpError`s (403, 415, 406).
 */
export interface HttpGuard {
  check(req: IncomingMessage, route?: GuardedRoute): void;
  /**
   * CORS, for the origins listed in `allowedOrigins` and only those (never for `'*'`, which trusts
   * a proxy's checks, not every page): answers a preflight (`OPTIONS` with an `Origin`: 204 with
   * the methods and headers an MCP client uses, or 403 without any CORS header for an origin not
   * listed) and returns true; for any other request from a listed origin, sets the headers that
   * let the page read the answer (`Mcp-Session-Id` exposed) and returns false.
   */
  cors(req: IncomingMessage, res: ServerResponse): boolean;
}

export function createHttpGuard(options: HttpGuardOptions): HttpGuard {
  const origins = options.allowedOrigins ?? (options.allowedHosts === '*' ? '*' : []);
  const setting = options.setting ?? 'allowedHosts';
  /** A listed origin (explicitly: `'*'` lists none for CORS), or `undefined`. */
  const listed = (origin: string | undefined): string | undefined => {
    if (origin === undefined || origin === 'null' || origins === '*') return undefined;
    try {
      return isListedOrigin(new URL(origin), origins) ? origin : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    check(req, route) {
      checkHost(req, options.allowedHosts, setting, origins, route?.pageShell === true);
      checkJsonContentType(req);
      if (route?.mcp) checkMcpAccept(req);
    },
    cors(req, res) {
      const origin = req.headers.origin;
      const preflight = req.method === 'OPTIONS' && origin !== undefined;
      const allowed = listed(origin);
      if (preflight) {
        try {
          checkHost(req, options.allowedHosts, setting, origins);
          if (!allowed)
            throw new HttpError(
              403,
              `Forbidden: Origin "${origin}" may not call this gateway from a browser (CORS; see ${setting})`,
            );
        } catch (error) {
          sendHttpError(res, error);
          return true;
        }
        res.writeHead(204, {
          'access-control-allow-origin': allowed,
          'access-control-allow-methods': 'GET, POST, DELETE',
          'access-control-allow-headers': CORS_REQUEST_HEADERS,
          'access-control-max-age': '600',
          vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
        });
        res.end();
        return true;
      }
      if (allowed) {
        res.setHeader('access-control-allow-origin', allowed);
        res.setHeader('access-control-expose-headers', CORS_EXPOSED_HEADERS);
        res.setHeader('vary', 'Origin');
      }
      return false;
    },
  };
}
