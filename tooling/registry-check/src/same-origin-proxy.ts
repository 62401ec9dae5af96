// One loopback origin for everything a runtime under test talks to: `/<provider>/…` goes to that
// fake provider, `/mcp` to the gateway, anything else is a file of `staticDir` (the browser
// check's page and bundle). A page then needs no CORS from any of them.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';

export interface SameOriginProxy {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** Where `/mcp` goes; set once the gateway runs. */
  setGateway(url: string): void;
  close(): Promise<void>;
}

export async function startSameOriginProxy(
  providers: Record<string, string>,
  staticDir: string,
): Promise<SameOriginProxy> {
  let gateway: string | undefined;
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    const prefix = /^\/([^/]+)/.exec(path)?.[1] ?? '';
    const target =
      prefix === 'mcp' && gateway
        ? new URL(path, gateway)
        : providers[prefix]
          ? new URL(path.slice(prefix.length + 1) || '/', providers[prefix])
          : undefined;
    if (!target) {
      const file = normalize(join(staticDir, path.split('?')[0]!));
      let content: Buffer;
      try {
        if (!file.startsWith(staticDir)) throw new Error('outside the folder');
        content = readFileSync(file);
      } catch {
        res.writeHead(404).end();
        return;
      }
      const type = file.endsWith('.html') ? 'text/html' : 'text/javascript';
      res.writeHead(200, { 'content-type': type }).end(content);
      return;
    }
    const upstream = request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    setGateway(url) {
      gateway = url;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
