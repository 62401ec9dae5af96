// Contender: the `mcp-proxy` npm package. A stdio upstream through its CLI, as its README shows
// (`mcp-proxy --port … -- <command>`), streamable HTTP at /mcp with sessions, pinned to 127.0.0.1
// (its default host is "::"), the resumability event store off (its README's advice for
// request/response-only use). Its CLI only spawns stdio servers: an HTTP upstream goes through its
// documented library API (proxyServer + startHTTPServer), the process the forwarder's own bench
// already runs (packages/forwarder/bench/processes/mcp-proxy.ts).
import { fileURLToPath } from 'node:url';
import { benchGateway, freePort, peerBin, startProcess, upstream } from './load.js';

const up = await upstream();
if (up.kind === 'stdio') {
  const port = await freePort();
  startProcess(process.execPath, [
    peerBin('mcp-proxy', 'dist/bin/mcp-proxy.mjs'),
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--server',
    'stream',
    '--no-eventStore',
    '--',
    up.command,
    ...up.args,
  ]);
  await benchGateway(`http://127.0.0.1:${port}/mcp`);
} else {
  const entry = fileURLToPath(
    new URL('../../../../../packages/forwarder/bench/processes/mcp-proxy.ts', import.meta.url),
  );
  const child = startProcess(process.execPath, ['--import', 'tsx', entry, up.url], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const url = await new Promise<string>((resolve) =>
    child.on('message', (message: { ready?: string }) => {
      if (message.ready) resolve(message.ready);
    }),
  );
  await benchGateway(url);
}
