import type { ServerResponse } from 'node:http';

// The HTTP and JSON-RPC helpers the gateway shares with the forwarder (`HttpError`, body reading
// with a size limit, JSON answers, the request guard and bearer tokens) come from
// `@toolwire/forwarder/http`; `sendError` is the forwarder's `sendHttpError` under the gateway's name.
export {
  HttpError,
  LOOPBACK_HOSTS,
  createHttpGuard,
  createHttpListener,
  readJson,
  sendJson,
  sendHttpError as sendError,
} from '@toolwire/forwarder/http';
export type { HttpGuard } from '@toolwire/forwarder/http';

const longLived = new WeakSet<ServerResponse>();

/** Long-lived responses (SSE streams) are marked so shutdown and reload do not wait for them. */
export function markLongLived(res: ServerResponse): void {
  longLived.add(res);
}

export function isLongLived(res: ServerResponse): boolean {
  return longLived.has(res);
}
