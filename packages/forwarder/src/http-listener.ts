import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';

export interface HttpListenerOptions {
  /**
   * A request's headers must be complete this long after its connection opened, or after the
   * previous answer on it ended, however slowly they trickle (default 10 s); else 408 and close.
   */
  headersTimeoutMs?: number;
  /** A whole request, body included, must arrive within this (default 30 s). */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this (default 5 s). */
  keepAliveTimeoutMs?: number;
  /** Open connections in all (default 4096); one more is answered 503 and closed. */
  maxConnections?: number;
  /** Open connections from one client address (default 1024); one more is answered 503 and closed. */
  maxConnectionsPerAddress?: number;
  /**
   * After an answer that left its request's body unread (a 413, a 401 during an upload), the rest
   * of the body is read and dropped for at most `lingerMs` (default 5 s) and `lingerBytes`
   * (default 16 MiB), so that the client, still sending, can read the answer; then the connection
   * is closed.
   */
  lingerMs?: number;
  lingerBytes?: number;
  /** Told of each connection refused by a cap (`global` or `address`) and each header timeout. */
  onRefused?: (reason: 'global' | 'address' | 'headers', address: string) => void;
}

/** Defaults of `HttpListenerOptions` (the server README lists them). */
export const HTTP_LISTENER_DEFAULTS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 4096,
  maxConnectionsPerAddress: 1024,
  lingerMs: 5_000,
  lingerBytes: 16 * 1024 * 1024,
} as const;

export interface HttpListener {
  server: Server;
  /** Open connections now. */
  openConnections(): number;
}

interface Connection {
  address: string;
  /** Requests on it whose answers have not ended. */
  pending: number;
  /** The request being read (the last one whose headers arrived). */
  current: IncomingMessage | undefined;
  headerTimer: NodeJS.Timeout | undefined;
  lingering: boolean;
}

const REFUSED_503 =
  'HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: 33\r\n\r\nToo many connections; try again.\n';
const TIMEOUT_408 =
  'HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n';

/**
 * An HTTP server with the defences every listener of the gateway needs, besides Node's own timeouts:
 *
 * - **Headers within a deadline, however they trickle.** Node's `headersTimeout` counts from the
 *   first byte of a request: on a kept-alive connection a client dripping blank lines (which
 *   start no request) keeps it open for as long as it drips, and each byte resets the keep-alive
 *   timeout. Here each connection has its own deadline, set when it opens and when its last
 *   answer ends, cleared only when a request's headers are complete.
 * - **Connection caps**, in all and per client address: one more is answered 503 and closed
 *   before anything of it is read.
 * - **Lingering close.** An answer sent before its request's body was read (413, 401) would be
 *   lost: Node closes a `Connection: close` exchange at once, and the kernel answers the client's
 *   next bytes with a reset that discards the answer unread (Python's `urllib` sees EPIPE). Here
 *   the connection is half-closed after the answer and the rest of the body read and dropped, as
 *   nginx does, for a bounded time and size; a kept-alive one is bounded the same way (Node would
 *   read an endless body until the request timeout).
 * - Malformed or timed-out requests answered 400 or 408 (`clientError`).
 */
export function createHttpListener(
  options: HttpListenerOptions,
  handler: RequestListener,
): HttpListener {
  const settings = { ...HTTP_LISTENER_DEFAULTS, ...definedOnly(options) };
  const headersTimeout = settings.headersTimeoutMs;
  const connections = new Map<Socket, Connection>();
  const perAddress = new Map<string, number>();
  /** Sockets answered 503 or 408: a request parsed on one before it closes is not served. */
  const refused = new WeakSet<Socket>();

  const server = createServer(
    {
      // Node's own checks stay as a second line (and bound the body: `requestTimeout`).
      headersTimeout,
      requestTimeout: Math.max(settings.requestTimeoutMs, headersTimeout),
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, headersTimeout),
    },
    (req, res) => {
      const connection = connections.get(req.socket);
      if (refused.has(req.socket) || !connection) {
        req.socket.destroy();
        return;
      }
      connection.pending++;
      connection.current = req;
      clearTimeout(connection.headerTimer);
      connection.headerTimer = undefined;
      let ended = false;
      const end = (): void => {
        if (ended) return;
        ended = true;
        connection.pending--;
        if (!req.complete) linger(req, connection, false);
        if (connection.pending === 0 && !req.socket.destroyed) armHeaderDeadline(req.socket);
      };
      res.once('finish', end);
      res.once('close', end);
      handler(req, res as ServerResponse);
    },
  );

  function refuse(socket: Socket, answer: string): void {
    refused.add(socket);
    if (socket.writable) socket.end(answer);
    // The answer goes out, then the connection closes, whatever the client still sends.
    const timer = setTimeout(() => socket.destroy(), 1_000);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  }

  function armHeaderDeadline(socket: Socket): void {
    const connection = connections.get(socket);
    if (!connection) return;
    clearTimeout(connection.headerTimer);
    connection.headerTimer = setTimeout(() => {
      settings.onRefused?.('headers', connection.address);
      refuse(socket, TIMEOUT_408);
    }, headersTimeout);
    connection.headerTimer.unref();
  }

  /**
   * Reads and drops the rest of `req`'s body for a bounded time and size, then closes the
   * connection (at once when the body ends, for a closing exchange); `closing`: the exchange ends
   * the connection, so it is half-closed first (the answer is flushed, then FIN).
   */
  function linger(req: IncomingMessage, connection: Connection, closing: boolean): void {
    const socket = req.socket;
    if (closing) socket.end();
    if (connection.lingering) return;
    connection.lingering = true;
    let read = 0;
    const stop = (cut: boolean): void => {
      clearTimeout(timer);
      req.off('data', count);
      req.off('end', ended);
      connection.lingering = false;
      if (cut) closeAfterAnswer(socket);
    };
    const count = (chunk: Buffer): void => {
      read += chunk.length;
      if (read > settings.lingerBytes) stop(true);
    };
    const ended = (): void => stop(closing);
    const timer = setTimeout(() => stop(true), settings.lingerMs);
    timer.unref();
    req.on('data', count);
    req.once('end', ended);
    socket.once('close', () => stop(false));
    req.resume();
  }

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const fromAddress = (perAddress.get(address) ?? 0) + 1;
    const over =
      connections.size >= settings.maxConnections
        ? 'global'
        : fromAddress > settings.maxConnectionsPerAddress
          ? 'address'
          : undefined;
    if (over) {
      settings.onRefused?.(over, address);
      refuse(socket, REFUSED_503);
      return;
    }
    perAddress.set(address, fromAddress);
    const connection: Connection = {
      address,
      pending: 0,
      current: undefined,
      headerTimer: undefined,
      lingering: false,
    };
    connections.set(socket, connection);
    armHeaderDeadline(socket);
    // Node ends an exchange that closes its connection (the client's or our `Connection: close`)
    // with `destroySoon()`, which would close it under a client still sending its body.
    const destroySoon = socket.destroySoon.bind(socket);
    socket.destroySoon = () => {
      const req = connection.current;
      if (req && !req.complete && !refused.has(socket)) linger(req, connection, true);
      else destroySoon();
    };
    socket.once('close', () => {
      clearTimeout(connection.headerTimer);
      connections.delete(socket);
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
  });

  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // A request that took too long answers 408 (Node's timeouts); anything else malformed, 400.
    if (refused.has(socket) || !socket.writable) {
      socket.destroy();
      return;
    }
    refuse(
      socket,
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? TIMEOUT_408
        : 'HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n',
    );
  });

  return { server, openConnections: () => connections.size };
}

/** Closes the connection once what was written on it is sent (a reset would discard it unread). */
function closeAfterAnswer(socket: Socket): void {
  if (socket.destroyed) return;
  socket.end();
  if (socket.writableFinished) socket.destroy();
  else socket.once('finish', () => socket.destroy());
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
