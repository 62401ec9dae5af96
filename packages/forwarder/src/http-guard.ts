import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-helpers.js';

/** The host names a gateway accepts by default (DNS-rebinding protection). */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]', '::1'];

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

/**
 * The checks every request passes once, before its route runs: `Host`, `Origin` and fetch metadata
 * (`checkHost`), and a JSON `Content-Type` on POSTs (`checkJsonContentType`); MCP routes also
 * check `Accept` (`checkMcpAccept`). Refusals throw `HttpError`s (403, 415, 406).
 */
export interface HttpGuard {
  check(req: IncomingMessage, route?: { mcp?: boolean }): void;
}

export function createHttpGuard(options: HttpGuardOptions): HttpGuard {
  const origins = options.allowedOrigins ?? (options.allowedHosts === '*' ? '*' : []);
  const setting = options.setting ?? 'allowedHosts';
  return {
    check(req, route) {
      checkHost(req, options.allowedHosts, setting, origins);
      checkJsonContentType(req);
      if (route?.mcp) checkMcpAccept(req);
    },
  };
}
