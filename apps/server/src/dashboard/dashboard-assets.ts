import type { IncomingMessage, ServerResponse } from 'node:http';
import { DASHBOARD_HTML } from './dashboard-page.js';

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:",
  'x-frame-options': 'DENY',
};

/** Serves the dashboard's page shell (it holds no data: that comes from `/api/*` with a token). */
export function serveDashboardAsset(path: string, req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, PAGE_HEADERS);
  res.end(req.method === 'HEAD' ? undefined : DASHBOARD_HTML);
}

const PATHS = new Set(['/']);
serveDashboardAsset.has = (path: string): boolean => PATHS.has(path);
