import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthToken } from '@toolwire/forwarder';
import type { CallLog } from './call-log.js';
import { handleChatCompletions, handleModels } from './chat-completions.js';
import { serveDashboardAsset } from './dashboard-assets.js';
import { createDashboardSignIn } from './dashboard-sign-in.js';
import { handleDashboardApi, visibleServers } from './dashboard-api.js';
import { requireGrant, type Grant } from './grants.js';
import { HttpError, sendJson, type HttpGuard } from './http-util.js';
import type { Logger } from './logger.js';
import { readiness } from './readiness.js';
import { handleResponses } from './responses-endpoint.js';
import type { Runtime } from './runtime.js';
import type { SharedState } from './shared-state.js';

export interface RouterOptions {
  guard: HttpGuard;
  shared: SharedState;
  callLog: CallLog;
  logger: Logger;
  maxBody: number;
  startedAt: number;
  /** Where shutdown is: draining (not ready, still serving) or shutting down (refusing). */
  phase: () => 'serving' | 'draining' | 'shutting-down';
  /** The secret every instance shares (signs the dashboard sign-in's state). */
  secret: Buffer;
}

/** One request as the routes see it. */
interface RouteRequest {
  runtime: Runtime;
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  /** The request target, query included. */
  target: string;
  /** The bearer token's entry (routes with `access: 'token'`). */
  token: AuthToken | undefined;
}

interface Route {
  /** An exact path, or a prefix ending in `/`, or a predicate on the runtime's routes. */
  path: string | ((path: string, runtime: Runtime) => boolean);
  /** Accepted methods (default: any); others are not found, or 405 with `refuseOtherMethods`. */
  methods?: readonly string[];
  refuseOtherMethods?: boolean;
  /**
   * `public`: no checks (health); `own`: the route checks for itself; `guarded`: the request
   * guard (Host, Origin, fetch metadata, Content-Type); `token`: the guard and a bearer token.
   */
  access: 'public' | 'own' | 'guarded' | 'token';
  /**
   * Paths of the route a top-level GET navigation from another site may open: the dashboard's page
   * shell `/` (it holds no data) and the sign-in flow's pages (the issuer redirects back to them;
   * they check their own signed state).
   */
  navigable?: (path: string) => boolean;
  /** A grant the token must hold (`access: 'token'`), checked before the route runs. */
  grant?: Grant;
  handle(request: RouteRequest): void | Promise<void>;
}

/**
 * The gateway's routes, in the order they are tried: health and readiness, the forwarder's own
 * (`/mcp`, `/servers/<name>/mcp`, `/metrics`: it checks those requests itself, once), the dashboard,
 * the OpenAI-compatible endpoints and the dashboard's API.
 */
export function createRouter(
  options: RouterOptions,
): (runtime: Runtime, req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const context = { shared: options.shared, logger: options.logger, maxBody: options.maxBody };
  const signIn = createDashboardSignIn({ secret: options.secret, logger: options.logger });
  const routes: Route[] = [
    {
      path: '/healthz',
      access: 'public',
      handle: ({ runtime, req, res }) =>
        sendJson(res, 200, {
          status: 'ok',
          ...(anonymous(runtime, req)
            ? {}
            : { uptimeSeconds: Math.round((Date.now() - options.startedAt) / 1000) }),
        }),
    },
    { path: '/readyz', methods: ['GET'], access: 'own', handle: readyz },
    {
      path: (path, runtime) => runtime.forwarder.handles(path),
      access: 'own',
      handle: ({ runtime, req, res }) => runtime.forwarder.handle(req, res),
    },
    {
      path: (path) => serveDashboardAsset.has(path),
      methods: ['GET', 'HEAD'],
      access: 'guarded',
      navigable: (path) => path === '/',
      handle: ({ req, res, path }) => serveDashboardAsset(path, req, res),
    },
    {
      // Dashboard sign-in at the auth.jwt issuer (a browser's navigations, no token yet).
      path: '/auth/',
      methods: ['GET'],
      access: 'guarded',
      navigable: () => true,
      handle: ({ runtime, path, req, res }) => signIn.handle(runtime, path, req, res),
    },
    {
      path: '/v1/chat/completions',
      methods: ['POST'],
      refuseOtherMethods: true,
      access: 'token',
      grant: 'chat',
      handle: ({ runtime, token, req, res }) =>
        handleChatCompletions({ runtime, token, ...context }, req, res),
    },
    {
      path: '/v1/responses',
      methods: ['POST'],
      refuseOtherMethods: true,
      access: 'token',
      grant: 'chat',
      handle: ({ runtime, token, req, res }) =>
        handleResponses({ runtime, token, ...context }, req, res),
    },
    {
      path: '/v1/models',
      methods: ['GET'],
      access: 'token',
      handle: ({ runtime, res }) => handleModels(runtime, res),
    },
    {
      path: '/api/',
      access: 'token',
      handle: ({ runtime, token, req, res, path, target }) =>
        handleDashboardApi(
          { runtime, token, ...context, callLog: options.callLog, startedAt: options.startedAt },
          path,
          new URL(target, 'http://localhost'),
          req,
          res,
        ),
    },
  ];

  /** Readiness for a load balancer (no token: the status word) or a client (its scope's details). */
  async function readyz({ runtime, req, res }: RouteRequest): Promise<void> {
    // Not ready while draining, for everyone alike (before authentication).
    if (options.phase() === 'draining') return sendJson(res, 503, { status: 'draining' });
    const { status, code } = readiness(runtime);
    if (anonymous(runtime, req)) return sendJson(res, code, { status });
    options.guard.check(req);
    const token = await runtime.forwarder.auth.authenticate(req);
    sendJson(res, code, {
      status,
      tools: runtime.forwarder.pipeline.visibleTools(token).tools.length,
      servers: visibleServers(runtime, token),
    });
  }

  return async function route(runtime, req, res) {
    const target = req.url ?? '/';
    const query = target.indexOf('?');
    // The MCP routes need only the path; a URL is parsed for the routes that read the query.
    const path = query === -1 ? target : target.slice(0, query);
    const method = req.method ?? 'GET';
    const found = routes.find(
      (each) =>
        matches(each, path, runtime) &&
        (each.methods === undefined || each.methods.includes(method) || each.refuseOtherMethods),
    );
    if (found?.access !== 'public' && options.phase() === 'shutting-down') {
      throw new HttpError(503, 'The gateway is shutting down', -32603, { connection: 'close' });
    }
    if (found === undefined) {
      options.guard.check(req);
      await runtime.forwarder.auth.authenticate(req);
      sendJson(res, 404, { error: { message: `Not found: ${path}` } });
      return;
    }
    if (found.access === 'guarded' || found.access === 'token')
      options.guard.check(req, { pageShell: found.navigable?.(path) === true });
    const token =
      found.access === 'token' ? await runtime.forwarder.auth.authenticate(req) : undefined;
    if (found.methods && !found.methods.includes(method)) {
      throw new HttpError(405, `Use ${found.methods.join(' or ')}`, -32600, {
        allow: found.methods.join(', '),
      });
    }
    if (found.grant) requireGrant(runtime, token, found.grant);
    await found.handle({ runtime, req, res, path, target, token });
  };
}

function matches(route: Route, path: string, runtime: Runtime): boolean {
  if (typeof route.path === 'function') return route.path(path, runtime);
  return route.path.endsWith('/') ? path.startsWith(route.path) : path === route.path;
}

/**
 * A load balancer's health check carries no token and may send any Host: with auth configured it
 * gets the status word alone, and nothing else is readable without a token.
 */
function anonymous(runtime: Runtime, req: IncomingMessage): boolean {
  return runtime.forwarder.auth.required && req.headers.authorization === undefined;
}
