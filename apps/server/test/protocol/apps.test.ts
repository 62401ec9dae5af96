// MCP Apps (`@modelcontextprotocol/ext-apps`) through the gateway, differential: what a host sees
// of an app (the tool's `_meta.ui.resourceUri`, the listed `ui://` view, the view read) through
// `/mcp` is what it sees straight at the server with the URIs namespaced, and through
// `/servers/<name>/mcp` exactly what it sees straight at the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers.js';
import {
  APP_TOOL,
  APP_URI,
  observeApp,
  startAppsServer,
  throughAggregated,
  type AppsServer,
} from './apps-server.js';
import { sdkV1Client, sdkV2Client, type ProtocolClient } from './clients.js';

let apps: AppsServer;
let more: AppsServer;
let gateway: TestGateway;

beforeAll(async () => {
  apps = await startAppsServer('a');
  more = await startAppsServer('b');
  gateway = await startGateway({
    mcpServers: { apps: { url: apps.url }, more: { url: more.url } },
  } as never);
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([apps?.close(), more?.close()]);
});

const kinds: Array<{
  kind: string;
  open: (url: string) => Promise<ProtocolClient>;
  direct: (url: string) => Promise<ProtocolClient>;
}> = [
  {
    kind: 'v2 2025-11-25',
    open: (u) => sdkV2Client(u, 'legacy'),
    direct: (u) => sdkV2Client(u, 'legacy'),
  },
  { kind: 'v1', open: (u) => sdkV1Client(u), direct: (u) => sdkV1Client(u) },
  {
    kind: 'v2 2026-07-28',
    open: (u) => sdkV2Client(u, 'modern'),
    direct: (u) => sdkV2Client(u, 'auto'),
  },
];

async function observe(open: (url: string) => Promise<ProtocolClient>, url: string, names: string) {
  const client = await open(url);
  try {
    return await observeApp(client, names);
  } finally {
    await client.close();
  }
}

describe('MCP Apps through the gateway', () => {
  for (const { kind, open, direct } of kinds) {
    it(`${kind}: the ui:// view namespaced on /mcp, as the server has it on /servers/<name>/mcp`, async () => {
      const straight = await observe(direct, apps.url, '');
      // The server really is an app: its tool names its view, which is listed and read as HTML.
      expect(straight.toolMeta.ui).toMatchObject({ resourceUri: APP_URI });
      expect(straight.resource).toMatchObject({
        uri: APP_URI,
        mimeType: 'text/html;profile=mcp-app',
      });
      expect(JSON.stringify(straight.read)).toContain('clock a');

      const passthrough = await observe(open, `${gateway.url}/servers/apps/mcp`, '');
      expect(passthrough).toEqual(straight);

      const aggregated = await observe(open, `${gateway.url}/mcp`, 'apps__');
      expect(aggregated.toolMeta.ui).toMatchObject({ resourceUri: 'ui://apps__clock/app.html' });
      expect(aggregated).toEqual(throughAggregated(straight, 'apps'));
    });
  }

  it('two upstreams serving the same ui:// URI: on /mcp each tool leads to its own view', async () => {
    const client = await sdkV2Client(`${gateway.url}/mcp`, 'legacy');
    try {
      const a = await observeApp(client, 'apps__');
      const b = await observeApp(client, 'more__');
      expect(a.toolMeta.ui).toMatchObject({ resourceUri: 'ui://apps__clock/app.html' });
      expect(b.toolMeta.ui).toMatchObject({ resourceUri: 'ui://more__clock/app.html' });
      expect(JSON.stringify(a.read)).toContain('clock a');
      expect(JSON.stringify(b.read)).toContain('clock b');
      const { resources } = (await client.request('resources/list', {})) as {
        resources: Array<{ uri: string }>;
      };
      expect(
        resources
          .map((r) => r.uri)
          .filter((uri) => uri.startsWith('ui://'))
          .sort(),
      ).toEqual(['ui://apps__clock/app.html', 'ui://more__clock/app.html']);
      // The tool itself still runs where it lives.
      expect(JSON.stringify(await client.callTool(`more__${APP_TOOL}`, {}))).toContain('(b)');
      // A ui:// URI of no upstream is not found (not sent somewhere at a guess).
      await expect(
        client.request('resources/read', { uri: 'ui://nobody__clock/app.html' }),
      ).rejects.toThrow();
    } finally {
      await client.close();
    }
  });
});
