import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpError } from './http-util.js';

// The dashboard: a page, its styles and its script, built from src/dashboard (HTML, CSS and
// TypeScript) by scripts/build-dashboard.ts. The page holds no data itself: everything comes from
// `/api/*` with the bearer token the user enters, so the files are served without auth. Nothing
// inline: the policy allows scripts and styles from this origin only.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/dashboard.js': { file: 'dashboard.js', type: 'text/javascript; charset=utf-8' },
  '/dashboard.css': { file: 'dashboard.css', type: 'text/css; charset=utf-8' },
  // The page links the SVG; a browser that asks for /favicon.ico anyway gets it too (not a 404).
  '/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
  '/favicon.ico': { file: 'favicon.svg', type: 'image/svg+xml' },
};

/**
 * Where the built files are: `TOOLWIRE_DASHBOARD_DIR` when set (the tests build them apart), else
 * `dashboard/` beside the server's code (`dist/dashboard`).
 */
function dashboardDir(): string {
  return (
    process.env.TOOLWIRE_DASHBOARD_DIR ?? join(dirname(fileURLToPath(import.meta.url)), 'dashboard')
  );
}

const loaded = new Map<string, Buffer>();

function read(file: string): Buffer {
  let content = loaded.get(file);
  if (!content) {
    const path = join(dashboardDir(), file);
    if (!existsSync(path))
      throw new HttpError(500, `The dashboard is not built (${path}): run pnpm build`, -32603);
    content = readFileSync(path);
    loaded.set(file, content);
  }
  return content;
}

/** Serves one of the dashboard's files (`/`, `/dashboard.js`, `/dashboard.css`, the icon). */
export function serveDashboardAsset(path: string, req: IncomingMessage, res: ServerResponse): void {
  const asset = FILES[path]!;
  const body = read(asset.file);
  res.writeHead(200, {
    'content-type': asset.type,
    'content-length': body.length,
    'cache-control': 'no-store',
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

serveDashboardAsset.has = (path: string): boolean => Object.hasOwn(FILES, path);
