import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  registerAppResource,
  registerAppTool,
  RESOURCE_MIME_TYPE,
} from '@modelcontextprotocol/ext-apps/server';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';

/** An MCP Apps server (`@modelcontextprotocol/ext-apps`) over streamable HTTP on 127.0.0.1. */
export interface AppsServer {
  url: string;
  close(): Promise<void>;
}

/** The URI of the app every such server serves (the same on each: the gateway keeps them apart). */
export const APP_URI = 'ui://clock/app.html';
export const APP_TOOL = 'show-clock';

/**
 * A tiny MCP App as its authors write one with the ext-apps server helpers: a tool whose `_meta`
 * names its `ui://` view, and that view's HTML as a resource (`label` tells two servers apart).
 */
function appServer(label: string): McpServer {
  const server = new McpServer({ name: `clock-${label}`, version: '1.0.0' });
  registerAppTool(
    server,
    APP_TOOL,
    {
      title: 'Show the clock',
      description: 'Shows the current time in an interactive view.',
      _meta: { ui: { resourceUri: APP_URI } },
    },
    async () => ({ content: [{ type: 'text', text: `12:00 (${label})` }] }),
  );
  registerAppResource(
    server,
    'Clock view',
    APP_URI,
    { description: 'The clock app' },
    async () => ({
      contents: [
        {
          uri: APP_URI,
          mimeType: RESOURCE_MIME_TYPE,
          text: `<!doctype html><title>clock ${label}</title><p id="time">12:00</p>`,
          _meta: { ui: { prefersBorder: true, csp: { connectDomains: [] } } },
        },
      ],
    }),
  );
  return server;
}

/** Starts the server: 2025-11-25 sessions (initialize, `Mcp-Session-Id`), one app server each. */
export async function startAppsServer(label = 'a'): Promise<AppsServer> {
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body: unknown = text === '' ? undefined : JSON.parse(text);
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res, body);
    if (typeof id === 'string' || (body as { method?: unknown })?.method !== 'initialize') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32001, message: 'Session not found' },
        }),
      );
      return;
    }
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (session) => void sessions.set(session, transport),
      onsessionclosed: (session) => void sessions.delete(session),
    });
    await appServer(label).connect(transport);
    await transport.handleRequest(req, res, body);
  };
  const http = createServer((req, res) => {
    serve(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      await new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      });
    },
  };
}

/** What a host sees of the app at one endpoint: the tool's `_meta`, the listed view, the view read. */
export interface AppObservation {
  toolMeta: { ui: unknown; flat: unknown };
  resource: unknown;
  read: unknown;
}

/** Lists the app's tool (`names`: the route's prefix), follows its `ui://` URI, reads the view. */
export async function observeApp(
  client: {
    listTools(): Promise<unknown[]>;
    request(method: string, params: object): Promise<unknown>;
  },
  names: string,
): Promise<AppObservation> {
  const tools = (await client.listTools()) as Array<{
    name: string;
    _meta?: Record<string, unknown>;
  }>;
  const meta = tools.find((tool) => tool.name === `${names}${APP_TOOL}`)?._meta ?? {};
  const uri = (meta.ui as { resourceUri?: unknown } | undefined)?.resourceUri;
  const { resources } = (await client.request('resources/list', {})) as {
    resources: Array<{ uri: string }>;
  };
  return {
    toolMeta: { ui: meta.ui, flat: meta['ui/resourceUri'] },
    resource: resources.find((resource) => resource.uri === uri),
    read:
      typeof uri === 'string'
        ? await client
            .request('resources/read', { uri })
            .then((result) => (result as { contents?: unknown }).contents)
            .catch((error: Error) => error.message)
        : undefined,
  };
}

/** An observation straight at the server as `/mcp` should show it: its `ui://` URIs namespaced. */
export function throughAggregated(observation: AppObservation, server: string): AppObservation {
  return JSON.parse(
    JSON.stringify(observation).replaceAll('"ui://', `"ui://${server}__`),
  ) as AppObservation;
}
