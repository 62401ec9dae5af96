// Contender: the real `toolwire-server` binary, with a config naming the upstream as `up`.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchGateway, freePort, scratch, startProcess, upstream } from './load.js';

const bin = join(
  dirname(fileURLToPath(import.meta.resolve('@toolwire/server/package.json'))),
  'dist',
  'main.js',
);
const up = await upstream();
const server = up.kind === 'http' ? { url: up.url } : { command: up.command, args: up.args };
const dir = scratch({ 'toolwire.config.json': { mcpServers: { up: server } } });
const port = await freePort();
startProcess(
  process.execPath,
  [
    bin,
    '--config',
    join(dir, 'toolwire.config.json'),
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
  ],
  { cwd: dir, env: { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') } },
);
await benchGateway(`http://127.0.0.1:${port}/mcp`);
