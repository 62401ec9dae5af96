import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AuthorizationHandler } from './oauth-handlers.js';

export interface LoopbackAuthorizationHandlerOptions {
  /** Shows the authorization URL to the user (default: a line on stderr). */
  print?: (message: string) => void;
  /** Also open the URL in the default browser (`open` / `xdg-open` / `start`); default false. */
  open?: boolean;
  /** Give up waiting for the browser after this long (default 5 minutes). */
  timeoutMs?: number;
}

interface Waiter {
  resolve: (params: URLSearchParams) => void;
}

interface Listener {
  server: Server;
  ready: Promise<void>;
  path: string;
  waiters: Map<string, Waiter>;
}

const listeners = new Map<string, Listener>();

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The default for a CLI: prints (and optionally opens) the authorization URL and waits for the
 * browser to come back to the redirect URL, served by a small HTTP server on 127.0.0.1 that runs
 * only while an authorization is pending. Several servers authorizing at once share the listener
 * and are told apart by `state`.
 */
export function createLoopbackAuthorizationHandler(
  options: LoopbackAuthorizationHandlerOptions = {},
): AuthorizationHandler {
  const print = options.print ?? ((message: string) => process.stderr.write(`${message}\n`));
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  return async ({ server, authorizationUrl, redirectUrl, signal }) => {
    const redirect = new URL(redirectUrl);
    if (redirect.protocol !== 'http:' || !LOOPBACK_HOSTS.has(redirect.hostname) || !redirect.port)
      throw new Error(
        `the loopback authorization handler needs a redirect URL like http://127.0.0.1:<port>/callback (got ${redirectUrl}); set mcpServers.${server}.auth.redirectUrl`,
      );
    const state = authorizationUrl.searchParams.get('state');
    if (!state) throw new Error('the authorization URL has no state parameter');
    const listener = await listen(redirect);
    const params = new Promise<URLSearchParams>((resolve, reject) => {
      const timer = setTimeout(
        () => finish(new Error(`authorization was not completed within ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
      timer.unref();
      const onAbort = () => finish(signal?.reason ?? new Error('authorization was abandoned'));
      signal?.addEventListener('abort', onAbort, { once: true });
      function finish(outcome: URLSearchParams | Error): void {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        listener.waiters.delete(state!);
        if (listener.waiters.size === 0) {
          listeners.delete(redirect.host);
          listener.server.close();
        }
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      }
      listener.waiters.set(state, { resolve: finish });
      if (signal?.aborted) onAbort();
    });
    print(
      `MCP server "${server}" needs authorization: open this URL in a browser\n  ${authorizationUrl.href}`,
    );
    if (options.open) openInBrowser(authorizationUrl.href);
    return params;
  };
}

async function listen(redirect: URL): Promise<Listener> {
  const existing = listeners.get(redirect.host);
  if (existing) {
    await existing.ready;
    return existing;
  }
  const listener: Listener = {
    server: createServer((request, response) => {
      const url = new URL(request.url ?? '/', `http://${redirect.host}`);
      const waiter = listener.waiters.get(url.searchParams.get('state') ?? '');
      if (url.pathname !== listener.path || !waiter) {
        response.writeHead(url.pathname === listener.path ? 400 : 404, {
          'content-type': 'text/plain; charset=utf-8',
        });
        response.end(
          url.pathname === listener.path
            ? 'Unknown or expired authorization request.\n'
            : 'Not found.\n',
        );
        return;
      }
      const failed = url.searchParams.has('error');
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(
        failed
          ? `Authorization failed: ${url.searchParams.get('error')}. You can close this tab.\n`
          : 'Authorization complete. You can close this tab.\n',
      );
      waiter.resolve(url.searchParams);
    }),
    ready: Promise.resolve(),
    path: redirect.pathname,
    waiters: new Map(),
  };
  const host = redirect.hostname === '[::1]' ? '::1' : '127.0.0.1';
  listener.ready = new Promise<void>((resolve, reject) => {
    listener.server.once('error', (error) => {
      listeners.delete(redirect.host);
      reject(
        new Error(
          `cannot listen for the OAuth callback on ${host}:${redirect.port} (${(error as NodeJS.ErrnoException).code ?? error.message}); choose another port in auth.redirectUrl`,
        ),
      );
    });
    listener.server.listen(Number(redirect.port), host, () => resolve());
  });
  listeners.set(redirect.host, listener);
  await listener.ready;
  return listener;
}

function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command as string, args as string[], { stdio: 'ignore', detached: true });
    child.once('error', () => {});
    child.unref();
  } catch {
    // Printing the URL already told the user what to do; a missing opener is not an error.
  }
}
