// Contender: `mcp-hub` (`mcp-hub --port … --config …`, its README's way) with the upstream as its
// one server, clients on its unified /mcp endpoint (HTTP+SSE: it has no streamable HTTP endpoint). It binds every interface and fetches its
// marketplace registry at start: preloads pin it to 127.0.0.1 and refuse any non-loopback fetch,
// and its curl fallback meets a proxy that is not there.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loopbackPreloadPath } from '@toolwire/testing/mcp';
import { benchGateway, freePort, peerBin, scratch, startProcess, upstream } from './load.js';

const up = await upstream();
const server = up.kind === 'http' ? { url: up.url } : { command: up.command, args: up.args };
const dir = scratch({ 'mcp-hub.json': { mcpServers: { up: server } } });
const port = await freePort();
const offline = fileURLToPath(new URL('../../fixtures/offline-preload.mjs', import.meta.url));
startProcess(
  process.execPath,
  [
    '--import',
    loopbackPreloadPath(),
    '--import',
    offline,
    peerBin('mcp-hub', 'dist/cli.js'),
    '--port',
    String(port),
    '--config',
    join(dir, 'mcp-hub.json'),
  ],
  {
    cwd: dir,
    env: {
      ...process.env,
      HOME: dir,
      XDG_CACHE_HOME: join(dir, 'cache'),
      XDG_STATE_HOME: join(dir, 'state'),
      XDG_CONFIG_HOME: join(dir, 'config'),
      XDG_DATA_HOME: join(dir, 'data'),
      https_proxy: 'http://127.0.0.1:9',
      HTTPS_PROXY: 'http://127.0.0.1:9',
      no_proxy: '127.0.0.1,localhost',
    },
  },
);
// Its unified endpoint speaks the HTTP+SSE transport only (GET /mcp, POST /messages).
await benchGateway(`http://127.0.0.1:${port}/mcp`, 'sse');
