import { vi } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { PassThrough } from 'node:stream';
import type { ToolwireConfig } from '@toolwire/mcp';
import { BIN_DIR } from './global-setup.js';
import { startServer, type RunningServer, type StartServerOptions } from '../src/index.js';

export const MODERN = '2026-07-28';

export interface TestGateway {
  server: RunningServer;
  url: string;
  /** Every JSON log line written so far. */
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/** A gateway on a free port (or `options.port`) with its JSON logs captured. */
export async function startGateway(
  config: ToolwireConfig,
  options: Omit<StartServerOptions, 'config' | 'logStream'> = {},
): Promise<TestGateway> {
  const logs: Array<Record<string, unknown>> = [];
  const stream = new PassThrough();
  let pending = '';
  stream.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    let at: number;
    while ((at = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, at);
      const parsed = JSON.parse(line) as Record<string, unknown>;
      // Written as JSON.stringify would write it: a key written twice (which JSON.parse keeps
      // once) makes the line longer than its re-serialization.
      if (JSON.stringify(parsed).length !== line.length)
        throw new Error(`a log line with a repeated key or non-canonical JSON: ${line}`);
      logs.push(parsed);
      pending = pending.slice(at + 1);
    }
  });
  const server = await startServer({ config, port: 0, logStream: stream, ...options });
  return { server, url: server.url, logs, close: () => server.close() };
}

export interface RpcAnswer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON-RPC answers are read field by field
}

async function read(response: Response): Promise<RpcAnswer> {
  const text = await response.text();
  let body: unknown = text;
  if (response.headers.get('content-type')?.includes('text/event-stream')) {
    const last = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .pop();
    body = last ? JSON.parse(last.slice(6)) : undefined;
  } else if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.status, headers: response.headers, body };
}

let nextId = 1;

/** One 2026-07-28 request (stateless, with the Mcp-Method/Mcp-Name headers). */
export async function modernCall(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<RpcAnswer> {
  const name =
    method === 'tools/call' || method === 'prompts/get'
      ? params.name
      : method === 'resources/read'
        ? params.uri
        : undefined;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
        },
      },
    }),
  });
  return read(response);
}

/** A 2025-11-25 session: `initialize`, then requests carrying its Mcp-Session-Id. */
export async function legacySession(url: string, headers: Record<string, string> = {}) {
  const post = async (body: unknown, session?: string): Promise<RpcAnswer> =>
    read(
      await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
          ...headers,
        },
        body: JSON.stringify(body),
      }),
    );
  const init = await post({
    jsonrpc: '2.0',
    id: nextId++,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'test', version: '1' },
    },
  });
  const sessionId = init.headers.get('mcp-session-id') ?? undefined;
  if (sessionId) await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId);
  let lastId = 0;
  return {
    init,
    sessionId,
    /** The id of the last request sent with `request`. */
    lastId: () => lastId,
    request: (method: string, params: Record<string, unknown> = {}, session = sessionId) => {
      lastId = nextId++;
      return post({ jsonrpc: '2.0', id: lastId, method, params }, session);
    },
  };
}

export function textOf(result: { content?: Array<{ type: string; text?: string }> }): string {
  return (result.content ?? []).map((c) => c.text ?? '').join('');
}

/** Polls `probe` until it gives a value; `what` may be a function, read when the wait fails. */
export function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string | (() => string),
  timeoutMs = 15_000,
  intervalMs = 50,
): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await probe();
      if (value === undefined || value === false)
        throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
      return value;
    },
    { timeout: timeoutMs, interval: intervalMs },
  );
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/** `redis-server` on 127.0.0.1 (a free port unless given), without persistence. */
export async function startRedis(port?: number): Promise<{ url: string; process: ChildProcess }> {
  const bound = port ?? (await freePort());
  const child = spawn(
    'redis-server',
    ['--port', String(bound), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(
    () => output.includes('Ready to accept connections') || undefined,
    'redis-server to start',
    10_000,
  );
  return { url: `redis://127.0.0.1:${bound}`, process: child };
}

const BIN = join(BIN_DIR, 'main.js');

export interface Binary {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  stop(): Promise<void>;
}

/** `toolwire-server` as a child process on a free port, with its own cache folder. */
export async function startBinary(
  config: unknown,
  env: Record<string, string> = {},
): Promise<Binary> {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-gw-'));
  const file = join(dir, 'toolwire.config.json');
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(process.execPath, [BIN, '--config', file, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, XDG_CACHE_HOME: join(dir, 'cache'), ...env },
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exit = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = await waitFor(
    () => /MCP at (http:\/\/[^\s]+)\/mcp/.exec(err)?.[1],
    () => `the server to start (stderr: ${err})`,
  );
  return {
    child,
    url,
    stdout: () => out,
    stderr: () => err,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exit;
      }
    },
  };
}

/**
 * Resolves once a connection to `url` (a server that was closed) is refused: every kept-alive
 * socket of this process's fetch pool to it has failed and been dropped by then, so a new server
 * on the same port gets fresh connections.
 */
export function oldConnectionsGone(url: string): Promise<true> {
  return waitFor(
    async () =>
      fetch(url, { method: 'POST', body: '{}' }).then(
        () => undefined,
        (error: { cause?: { code?: string } }) =>
          error.cause?.code === 'ECONNREFUSED' ? true : undefined,
      ),
    `connections to ${url} to be refused`,
  );
}
