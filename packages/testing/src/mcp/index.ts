// MCP fixture servers (slow, crashing, changing tool list, bad schemas) for registry and forwarder tests.
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import {
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
  toWebRequest,
} from '@modelcontextprotocol/node';
import {
  createFixtureServer,
  createFixtureState,
  type FixtureEvent,
  type FixtureOptions,
} from './fixture-server.js';

export { createFixtureServer, createFixtureState } from './fixture-server.js';
export type {
  FixtureOptions,
  FixtureEvent,
  FixtureBuiltinTool,
  FixtureToolDefinition,
  FixtureState,
} from './fixture-server.js';

/** Absolute path of the fixture's stdio entry (a .ts file Node >= 22.18 runs directly). */
export function fixtureServerPath(): string {
  for (const candidate of ['./fixture-server.ts', '../../src/mcp/fixture-server.ts']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('cannot find @toolwire/testing src/mcp/fixture-server.ts');
}

/** An `mcpServers` entry that runs the fixture over stdio with these options. */
export function fixtureStdioConfig(options: FixtureOptions = {}): {
  command: string;
  args: string[];
  env: Record<string, string>;
} {
  return {
    command: process.execPath,
    args: ['--no-warnings', fixtureServerPath()],
    env: { FIXTURE_OPTIONS: JSON.stringify(options) },
  };
}

export interface FixtureHttpRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface FixtureHttpServer {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  port: number;
  /** Calls and cancellations the server saw. */
  events: FixtureEvent[];
  /** Every HTTP request's method and headers, in arrival order. */
  requests: FixtureHttpRequest[];
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/**
 * The fixture over streamable HTTP on 127.0.0.1, serving both protocol revisions from one
 * endpoint: 2026-07-28 statelessly, and 2025-era clients with real sessions (`Mcp-Session-Id`,
 * the GET stream for notifications, DELETE to end) unless `legacy` is `stateless` (one server per
 * request) or `reject`. `port` 0 picks a free port.
 */
export async function startFixtureHttpServer(
  options: FixtureOptions & { port?: number; legacy?: 'sessions' | 'stateless' | 'reject' } = {},
): Promise<FixtureHttpServer> {
  const state = createFixtureState(options);
  const legacy = options.legacy ?? 'sessions';
  const handler = createMcpHandler(() => createFixtureServer(state, { connected: false }), {
    legacy: legacy === 'stateless' ? 'stateless' : 'reject',
  });
  state.onToolsChanged = () => handler.notify.toolsChanged();
  const nodeHandler = toNodeHandler(handler);
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const requests: FixtureHttpRequest[] = [];

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (legacy !== 'sessions') return nodeHandler(req, res);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32700, message: 'Parse error' },
        }),
      );
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const transport = sessions.get(sessionId);
      if (!transport) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32001, message: 'Session not found' },
          }),
        );
        return;
      }
      return transport.handleRequest(req, res, body);
    }
    if (!(await isLegacyRequest(await toWebRequest(req, body), body)))
      return nodeHandler(req, res, body);
    if (
      req.method === 'POST' &&
      (body as { method?: unknown } | undefined)?.method === 'initialize'
    ) {
      const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, transport),
        onsessionclosed: (id) => void sessions.delete(id),
      });
      await createFixtureServer(state, { connected: true }).connect(transport);
      return transport.handleRequest(req, res, body);
    }
    res.writeHead(400, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: 'Bad Request: no valid session ID' },
      }),
    );
  };

  const server: HttpServer = createServer((req, res) => {
    requests.push({ method: req.method ?? '', headers: { ...req.headers } });
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    serve(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    events: state.events,
    requests,
    close: async () => {
      await Promise.all(
        [...sessions.values()].map((transport) => transport.close().catch(() => undefined)),
      );
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

/** Path of a `node --import` preload that makes servers without a host option listen on 127.0.0.1 only. */
export function loopbackPreloadPath(): string {
  for (const candidate of ['./loopback-preload.mjs', '../../src/mcp/loopback-preload.mjs']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('cannot find @toolwire/testing src/mcp/loopback-preload.mjs');
}
