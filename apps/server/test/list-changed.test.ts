import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startFixtureHttpServer, type FixtureHttpServer } from '@toolwire/testing/mcp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { oldConnectionsGone, startGateway, waitFor, type TestGateway } from './helpers.js';

// A changed upstream tool list must reach a downstream client within 2 s in every case: the first
// start, a start from the tool cache file, after the upstream restarted, after a config reload.
const WITHIN_2S = 2_000;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

let cacheHome: string;
let savedCacheHome: string | undefined;
beforeAll(() => {
  // The gateway's tool cache file lives under the XDG cache folder: give these tests their own.
  cacheHome = mkdtempSync(join(tmpdir(), 'toolwire-list-changed-'));
  savedCacheHome = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = cacheHome;
});
afterAll(() => {
  if (savedCacheHome === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = savedCacheHome;
  rmSync(cacheHome, { recursive: true, force: true });
});

async function sdk(url: string, mode: 'legacy' | 'auto'): Promise<Client> {
  const client = new Client({ name: 'list-changed-test', version: '1.0.0' }, {
    versionNegotiation: { mode },
  } as never);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanups.push(() => client.close().catch(() => undefined));
  return client;
}

/** A downstream client of the gateway that counts tools/list_changed. */
async function watcher(gw: TestGateway, mode: 'legacy' | 'auto') {
  const streams = gw.server.runtime.active.size;
  const client = await sdk(`${gw.url}/mcp`, mode);
  const seen = { changes: 0 };
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    seen.changes++;
  });
  // 2026-07-28 delivers changes on a subscription the client opens; 2025-11-25 on the GET stream
  // the SDK opens by itself right after initialize.
  if ((client.getNegotiatedProtocolVersion() ?? '') >= '2026-07-28')
    // Each list a client wants changes of, it names (tools, prompts, resources).
    await client.listen({
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
    } as never);
  else await waitFor(() => gw.server.runtime.active.size > streams || undefined, 'the GET stream');
  await client.listTools();
  return { client, seen };
}

/** Changes the upstream's tools as another of its clients would, and waits for the gateway to follow. */
async function changeAndExpect(
  upstream: FixtureHttpServer,
  downstream: { client: Client; seen: { changes: number } },
  added: string,
): Promise<void> {
  const direct = await sdk(upstream.url, 'legacy');
  const before = downstream.seen.changes;
  await direct.callTool({ name: 'change_tools', arguments: { add: added } });
  // Within 2 s: a list_changed arrived and the listing has the new tool.
  await waitFor(
    async () => {
      if (downstream.seen.changes === before) return undefined;
      const { tools } = await downstream.client.listTools();
      return tools.some((t) => t.name === `remote__${added}`) ? true : undefined;
    },
    `tools/list_changed and a listing with ${added}`,
    WITHIN_2S,
  );
}

for (const protocol of ['legacy', 'modern'] as const) {
  describe(`tools/list_changed from a ${protocol === 'legacy' ? '2025-11-25' : '2026-07-28'} HTTP upstream`, () => {
    const mode = protocol === 'legacy' ? 'legacy' : 'auto';

    it('reaches clients on the first start and on a start from the tool cache file', async () => {
      const upstream = await startFixtureHttpServer({ tools: ['echo', 'change_tools'] });
      cleanups.push(() => upstream.close());
      const config = { mcpServers: { remote: { url: upstream.url, protocol } } };
      const first = await startGateway(config);
      const one = await watcher(first, mode);
      await changeAndExpect(upstream, one, `first_${protocol}`);
      await first.close();

      // Second start: the registry begins from the cache file it wrote.
      const second = await startGateway(config);
      cleanups.push(() => second.close());
      const two = await watcher(second, mode);
      await changeAndExpect(upstream, two, `cached_${protocol}`);
    });

    it('reaches clients after the upstream restarted', async () => {
      let upstream = await startFixtureHttpServer({ tools: ['echo', 'change_tools'] });
      cleanups.push(() => upstream.close());
      const gw = await startGateway(
        { mcpServers: { remote: { url: upstream.url, protocol } } },
        { backoff: { initialMs: 100, maxMs: 400 } },
      );
      cleanups.push(() => gw.close());
      const downstream = await watcher(gw, mode);
      const port = upstream.port;
      await upstream.close();
      // This test process shares fetch's keep-alive pool with the in-process gateway: the old
      // server's sockets must be gone from it before the test's own client connects to the new one.
      await oldConnectionsGone(upstream.url);
      upstream = await startFixtureHttpServer({ tools: ['echo', 'change_tools'], port });
      await changeAndExpect(upstream, downstream, `restarted_${protocol}`);
    });
  });
}

describe('a config reload whose tool list differs', () => {
  it('sends tools/list_changed to connected clients (both eras)', async () => {
    const upstream = await startFixtureHttpServer({ tools: ['echo', 'change_tools'] });
    cleanups.push(() => upstream.close());
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-reload-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'toolwire.config.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { remote: { url: upstream.url } } }));
    const gw = await startGateway(undefined as never, { configPath: file, watchConfig: false });
    cleanups.push(() => gw.close());
    const legacy = await watcher(gw, 'legacy');
    const modern = await watcher(gw, 'auto');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: { remote: { url: upstream.url }, again: { url: upstream.url } },
      }),
    );
    await gw.server.reload();
    for (const downstream of [legacy, modern]) {
      await waitFor(
        () => (downstream.seen.changes > 0 ? true : undefined),
        'tools/list_changed after the reload',
        WITHIN_2S,
      );
      const { tools } = await downstream.client.listTools();
      expect(tools.map((t) => t.name)).toContain('again__echo');
    }
  });
});

describe('a config reload that changes the upstreams', () => {
  it('sends resources/list_changed and prompts/list_changed to connected clients (both eras)', async () => {
    const upstream = await startFixtureHttpServer({ tools: ['echo'] });
    cleanups.push(() => upstream.close());
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-reload-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'toolwire.config.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { remote: { url: upstream.url } } }));
    const gw = await startGateway(undefined as never, { configPath: file, watchConfig: false });
    cleanups.push(() => gw.close());
    const clients = await Promise.all(
      (['legacy', 'auto'] as const).map(async (mode) => {
        const { client } = await watcher(gw, mode);
        const seen = new Set<string>();
        for (const kind of ['resources', 'prompts'] as const)
          client.setNotificationHandler(`notifications/${kind}/list_changed`, () => {
            seen.add(kind);
          });
        return seen;
      }),
    );
    // The same tools from another upstream entry: the tool list differs, and the upstreams do.
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: { remote: { url: upstream.url }, again: { url: upstream.url } },
      }),
    );
    await gw.server.reload();
    for (const seen of clients)
      await waitFor(
        () => (seen.has('resources') && seen.has('prompts') ? true : undefined),
        () => `resources and prompts list_changed after the reload (saw ${[...seen].join(', ')})`,
        WITHIN_2S,
      );
  });
});
