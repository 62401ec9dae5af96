// Benchmark peer process: the `mcp-proxy` npm package (its documented library API: startHTTPServer +
// proxyServer) in front of the same upstream, reached with the SDK's streamable HTTP client.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { proxyServer, startHTTPServer } from 'mcp-proxy';
import { createServer } from 'node:net';

const upstreamUrl = process.argv[2]!;
const client = new Client({ name: 'mcp-proxy', version: '1.0.0' }, { capabilities: {} });
await client.connect(new StreamableHTTPClientTransport(new URL(upstreamUrl)));

const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number };
    probe.close(() => resolve(port));
  });
});
const server = await startHTTPServer({
  host: '127.0.0.1',
  port,
  eventStore: false,
  sseEndpoint: null,
  createServer: async () => {
    const serverCapabilities = client.getServerCapabilities() ?? {};
    const proxied = new Server(
      { name: 'mcp-proxy', version: '1.0.0' },
      { capabilities: serverCapabilities },
    );
    await proxyServer({ client, server: proxied, serverCapabilities });
    return proxied;
  },
});
process.send?.({ ready: `http://127.0.0.1:${port}/mcp` });
process.on('message', (message: { rss?: boolean }) => {
  if (message.rss) process.send?.({ rss: process.memoryUsage().rss });
});
process.on('disconnect', () => void server.close().then(() => process.exit(0)));
