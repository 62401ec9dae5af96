// LangChain's MCP adapters: `MultiServerMCPClient` over stdio, the tool from `getTools()` invoked.
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { iterationsFromEnv, msPerOp, report } from '../../harness.js';
import {
  checkEcho,
  ECHO_ARGUMENTS,
  ECHO_TOOL,
  echoServer,
} from '../../fixtures/mcp-echo-server.js';

const client = new MultiServerMCPClient({
  mcpServers: { bench: { transport: 'stdio', ...echoServer() } },
  useStandardContentBlocks: true,
});
const tools = await client.getTools();
const tool = tools.find((t) => t.name.endsWith(ECHO_TOOL));
if (!tool) throw new Error(`no ${ECHO_TOOL} tool in ${tools.map((t) => t.name).join(', ')}`);

/** The text of what the LangChain tool returned (a string, or content blocks). */
function textOf(output: unknown): string | undefined {
  if (typeof output === 'string') return output;
  const blocks = Array.isArray(output) ? output : [];
  const first = blocks[0] as { type?: string; text?: string } | undefined;
  return first?.type === 'text' ? first.text : undefined;
}

report(
  await msPerOp(
    async () => checkEcho(textOf(await tool.invoke(ECHO_ARGUMENTS))),
    iterationsFromEnv({ warmup: 300, iterations: 2000 }),
  ),
);
await client.close();
