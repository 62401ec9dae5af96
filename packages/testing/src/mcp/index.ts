// MCP fixture servers (slow, crashing, changing tool list, bad schemas) for registry and forwarder tests.
import { createServer, type Server as HttpServer } from 'node:http';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
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
 * endpoint (2026-07-28 stateless, and 2025-era requests statelessly). `port` 0 picks a free port.
 */
export async function startFixtureHttpServer(
  options: FixtureOptions & { port?: number; legacy?: 'stateless' | 'reject' } = {},
): Promise<FixtureHttpServer> {
  const state = createFixtureState(options);
  const handler = createMcpHandler(() => createFixtureServer(state), {
    legacy: options.legacy ?? 'stateless',
  });
  state.onToolsChanged = () => handler.notify.toolsChanged();
  const nodeHandler = toNodeHandler(handler);
  const requests: FixtureHttpRequest[] = [];
  const server: HttpServer = createServer((req, res) => {
    requests.push({ method: req.method ?? '', headers: { ...req.headers } });
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    nodeHandler(req, res).catch(() => {
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
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
