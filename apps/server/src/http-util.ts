import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkHost as checkHostAgainst, type AllowedOrigins } from '@toolwire/forwarder';

// The HTTP and JSON-RPC helpers the gateway shares with the forwarder (`HttpError`, body reading
// with a size limit, JSON answers, Host/Origin and bearer-token checks) come from
// `@toolwire/forwarder`; `sendError` is the forwarder's `sendHttpError` under the gateway's name.
export {
  HttpError,
  LOOPBACK_HOSTS,
  authenticate,
  checkJsonContentType,
  decodePathSegment,
  readJson,
  sendJson,
  sendHttpError as sendError,
} from '@toolwire/forwarder';

/**
 * DNS-rebinding and cross-site protection: `Host` must name an allowed host, `Origin` must be the
 * gateway's own or one of `origins`, and `Sec-Fetch-Site` must not say cross-site (403 otherwise).
 */
export function checkHost(
  req: IncomingMessage,
  allowed: readonly string[] | '*',
  origins: AllowedOrigins = [],
): void {
  checkHostAgainst(req, allowed, '--allowed-hosts', origins);
}

const longLived = new WeakSet<ServerResponse>();

/** Long-lived responses (SSE streams) are marked so shutdown and reload do not wait for them. */
export function markLongLived(res: ServerResponse): void {
  longLived.add(res);
}

export function isLongLived(res: ServerResponse): boolean {
  return longLived.has(res);
}
