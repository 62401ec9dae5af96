// Contender: the bare `@toolwire/forwarder` (its own listener) over a registry of the upstream,
// without toolwire-server's HTTP app around it; see forwarder-process.ts.
import { fileURLToPath } from 'node:url';
import { benchGateway, freePort, startProcess, upstream } from './load.js';

const up = await upstream();
const server = up.kind === 'http' ? { url: up.url } : { command: up.command, args: up.args };
const port = await freePort();
startProcess(process.execPath, [
  '--import',
  'tsx',
  fileURLToPath(new URL('./forwarder-process.ts', import.meta.url)),
  JSON.stringify({ mcpServers: { up: server } }),
  String(port),
]);
await benchGateway(`http://127.0.0.1:${port}/mcp`);
