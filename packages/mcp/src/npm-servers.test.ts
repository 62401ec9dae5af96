import { spawn, type ChildProcess } from 'node:child_process';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loopbackPreloadPath } from '@toolwire/testing/mcp';
import { afterAll, describe, expect, it } from 'vitest';
import { createRegistry } from './node-registry.js';
import type { Registry } from './registry-types.js';

// The three reference servers from npm, run from node_modules (no network, no npx).
const bin = (name: string) =>
  fileURLToPath(
    new URL(`../node_modules/@modelcontextprotocol/${name}/dist/index.js`, import.meta.url),
  );
const dir = mkdtempSync(join(tmpdir(), 'toolwire-npm-'));
writeFileSync(join(dir, 'hello.txt'), 'hello from toolwire\n');
const logger = { warn: () => undefined };

const registries: Registry[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  await Promise.all(registries.map((registry) => registry.close()));
  for (const child of children) child.kill('SIGTERM');
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** server-everything in an HTTP mode, pinned to 127.0.0.1 by the loopback preload. */
async function everythingOverHttp(mode: 'streamableHttp' | 'sse'): Promise<number> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', loopbackPreloadPath(), bin('server-everything'), mode],
    {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server-everything ${mode} did not start`)),
      15_000,
    );
    const onData = (chunk: Buffer) => {
      if (/listening|running|port/i.test(chunk.toString())) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}`)));
  });
  return port;
}

describe('createRegistry with the npm reference servers', () => {
  it('discovers server-everything, server-filesystem and server-memory over stdio and calls each', async () => {
    const registry = createRegistry({
      logger,
      cacheFile: join(dir, 'cache.json'),
      config: {
        mcpServers: {
          everything: { command: process.execPath, args: [bin('server-everything'), 'stdio'] },
          fs: { command: process.execPath, args: [bin('server-filesystem'), dir] },
          memory: {
            command: process.execPath,
            args: [bin('server-memory')],
            env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
          },
        },
      },
    });
    registries.push(registry);
    await registry.start();
    const servers = Object.fromEntries(registry.servers().map((s) => [s.name, s]));
    expect(servers.everything).toMatchObject({ status: 'ok', protocolVersion: '2025-11-25' });
    expect(servers.everything!.tools).toBeGreaterThanOrEqual(13);
    expect(servers.fs).toMatchObject({ status: 'ok', tools: 14 });
    expect(servers.memory).toMatchObject({ status: 'ok', tools: 9 });
    for (const tool of registry.listTools()) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);

    expect(await registry.callTool('everything__get-sum', { a: 2, b: 3 })).toMatchObject({
      content: [{ type: 'text', text: expect.stringContaining('5') }],
    });
    const file = await registry.callTool('fs__read_text_file', { path: join(dir, 'hello.txt') });
    expect(JSON.stringify(file.content)).toContain('hello from toolwire');
    await registry.callTool('memory__create_entities', {
      entities: [{ name: 'toolwire', entityType: 'project', observations: ['routes MCP calls'] }],
    });
    const graph = await registry.callTool('memory__read_graph', {});
    expect(JSON.stringify(graph)).toContain('routes MCP calls');
    await expect(registry.callTool('fs__read_text_file', {})).rejects.toThrow(
      '/path: is required but missing',
    );
    // Resources and prompts pass through the server's SDK client.
    const client = registry.getClient('everything')!;
    const { resources } = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('simple-prompt');
    expect(registry.getClient('nope')).toBeUndefined();
  });

  it('talks to server-everything over streamable HTTP and over legacy SSE (detected from /sse)', async () => {
    const httpPort = await everythingOverHttp('streamableHttp');
    const ssePort = await everythingOverHttp('sse');
    const registry = createRegistry({
      logger,
      config: {
        mcpServers: {
          http: { url: `http://127.0.0.1:${httpPort}/mcp` },
          sse: { url: `http://127.0.0.1:${ssePort}/sse` },
        },
      },
    });
    registries.push(registry);
    await registry.start();
    const servers = Object.fromEntries(registry.servers().map((s) => [s.name, s]));
    expect(servers.http).toMatchObject({
      status: 'ok',
      transport: 'http',
      protocolVersion: '2025-11-25',
    });
    expect(servers.sse).toMatchObject({ status: 'ok', transport: 'sse' });
    expect(await registry.callTool('http__echo', { message: 'over http' })).toMatchObject({
      content: [{ text: 'Echo: over http' }],
    });
    expect(await registry.callTool('sse__echo', { message: 'over sse' })).toMatchObject({
      content: [{ text: 'Echo: over sse' }],
    });
  });

  it('falls back to legacy SSE when a URL that does not end in /sse rejects streamable HTTP', async () => {
    const ssePort = await everythingOverHttp('sse');
    // A loopback proxy that serves server-everything's /sse stream at /events.
    const proxy = createHttpServer((req, res) => {
      const path = req.url?.startsWith('/events')
        ? req.url.replace('/events', '/sse')
        : (req.url ?? '/');
      const upstream = httpRequest(
        { host: '127.0.0.1', port: ssePort, path, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
    const address = proxy.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const registry = createRegistry({
      logger,
      config: { mcpServers: { legacy: { url: `http://127.0.0.1:${port}/events` } } },
    });
    registries.push(registry);
    try {
      await registry.start();
      expect(registry.servers()[0]).toMatchObject({ status: 'ok', transport: 'sse' });
      expect(await registry.callTool('legacy__echo', { message: 'via fallback' })).toMatchObject({
        content: [{ text: 'Echo: via fallback' }],
      });
    } finally {
      await registry.close();
      proxy.closeAllConnections();
      proxy.close();
    }
  });
});
