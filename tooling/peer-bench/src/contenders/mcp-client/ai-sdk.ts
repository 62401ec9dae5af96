// The AI SDK's MCP client: `createMCPClient` with its stdio transport, `client.callTool`.
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { iterationsFromEnv, msPerOp, report } from '../../harness.js';
import {
  checkEcho,
  ECHO_ARGUMENTS,
  ECHO_TOOL,
  echoServer,
  firstText,
} from '../../fixtures/mcp-echo-server.js';

const client = await createMCPClient({
  transport: new Experimental_StdioMCPTransport(echoServer()),
});
await client.listTools();

report(
  await msPerOp(
    async () =>
      checkEcho(firstText(await client.callTool({ name: ECHO_TOOL, arguments: ECHO_ARGUMENTS }))),
    iterationsFromEnv({ warmup: 300, iterations: 2000 }),
  ),
);
await client.close();
