// Toolwire: a registry with the one stdio server, calls through `registry.callTool`, as a user
// writes it (arguments validated, the result normalised).
import { createRegistry } from '@toolwire/mcp/node';
import { iterationsFromEnv, msPerOp, report } from '../../harness.js';
import {
  checkEcho,
  ECHO_ARGUMENTS,
  ECHO_TOOL,
  echoServer,
  firstText,
} from '../../fixtures/mcp-echo-server.js';

const registry = createRegistry({
  config: { mcpServers: { bench: echoServer() } },
  nativeTools: [],
  refreshIntervalMs: 0,
});
await registry.start();
const [server] = registry.servers();
if (server?.status !== 'ok') throw new Error(`the server did not start: ${JSON.stringify(server)}`);
const name = `bench__${ECHO_TOOL}`;

report(
  await msPerOp(
    async () => checkEcho(firstText(await registry.callTool(name, ECHO_ARGUMENTS))),
    iterationsFromEnv({ warmup: 300, iterations: 2000 }),
  ),
);
await registry.close();
