// The floor: the official MCP SDK client Toolwire is built on (`@modelcontextprotocol/client`,
// its stdio transport), `client.callTool` with nothing around it.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { iterationsFromEnv, msPerOp, report } from '../../harness.js';
import {
  checkEcho,
  ECHO_ARGUMENTS,
  ECHO_TOOL,
  echoServer,
  firstText,
} from '../../fixtures/mcp-echo-server.js';

const client = new Client({ name: 'peer-bench', version: '1.0.0' });
await client.connect(new StdioClientTransport(echoServer()));
await client.listTools();

report(
  await msPerOp(
    async () =>
      checkEcho(firstText(await client.callTool({ name: ECHO_TOOL, arguments: ECHO_ARGUMENTS }))),
    iterationsFromEnv({ warmup: 300, iterations: 2000 }),
  ),
);
await client.close();
