import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpGuard } from '../http-guard.js';
import { decodePathSegment, sendHttpError } from '../http-helpers.js';
import type { UserOAuth } from './user-oauth.js';

/** Where per-user OAuth's pages are: `<prefix><server>/connect` and `<prefix>callback`. */
export const USER_OAUTH_PREFIX = '/auth/upstreams/';

/** A page a person reads in their browser (no script, nothing loaded). */
function page(
  res: ServerResponse,
  status: number,
  title: string,
  text: string,
  headers = {},
): void {
  const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const body = `<!doctype html><html lang="en"><meta charset="utf-8"><title>${escape(title)}</title><h1>${escape(title)}</h1><p>${escape(text)}</p></html>`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': "default-src 'none'",
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(body);
}

/** The browser's side of per-user OAuth: the link a call's elicitation named, and the callback. */
export function serveUserOAuth(
  userOAuth: UserOAuth,
  guard: HttpGuard,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  void (async () => {
    // Pages a browser is sent to from elsewhere (the MCP client's link, the upstream issuer's
    // redirect): a top-level navigation is let through; the flow's signed state is what is checked.
    guard.check(req, { pageShell: true });
    if (req.method !== 'GET') return page(res, 405, 'Use GET', 'Open the link in a browser.');
    const url = new URL(req.url ?? '/', 'http://localhost');
    const rest = path.slice(USER_OAUTH_PREFIX.length);
    try {
      if (rest === 'callback') {
        const { server, cookie } = await userOAuth.finish(url.searchParams, req.headers.cookie);
        return page(
          res,
          200,
          `Connected to ${server}`,
          'You can close this page and go back to your client: call the tool again.',
          { 'set-cookie': cookie },
        );
      }
      const match = /^([^/]+)\/connect$/.exec(rest);
      if (!match) return page(res, 404, 'Not found', path);
      const server = decodePathSegment(match[1]!);
      if (!userOAuth.isPerUser(server))
        return page(res, 404, 'Not found', `No per-user upstream "${server}"`);
      const { location, cookie } = await userOAuth.start(server, url.searchParams.get('ticket'));
      res.writeHead(302, { location, 'set-cookie': cookie, 'cache-control': 'no-store' });
      res.end();
    } catch (error) {
      page(res, 400, 'Authorization failed', (error as Error).message);
    }
  })().catch((error: unknown) => sendHttpError(res, error));
}
