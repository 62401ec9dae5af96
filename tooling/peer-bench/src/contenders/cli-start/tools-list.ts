// Contender: `toolwire tools list --json` on the embedded default (fs and memory stdio servers)
// against the floor of the same work done by hand: spawning both servers with the MCP SDK client,
// initializing and listing their tools, in parallel, then closing. The two alternate in this one
// process, so each pair shares the machine's moment; reports the CLI's median and, as rows of their
// own, the servers' median and the CLI's overhead over them (median of the paired differences).
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { embeddedDefaultConfig } from '@toolwire/mcp/node';
import { iterationsFromEnv, report } from '../../harness.js';
import { cliBin, cliRequire, median, scratchHome, timeCommand } from './cli.js';

const { dir, env } = scratchHome();
const servers = Object.values(
  embeddedDefaultConfig({ resolve: (specifier) => cliRequire.resolve(specifier) }).mcpServers ?? {},
);

async function spawnAndList(): Promise<number> {
  const started = performance.now();
  await Promise.all(
    servers.map(async (server) => {
      const client = new Client({ name: 'peer-bench', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: server.command!,
          args: server.args ?? [],
          env: { ...(env as Record<string, string>), ...server.env },
          cwd: dir,
        }),
      );
      await client.listTools();
      await client.close();
    }),
  );
  return performance.now() - started;
}

const toolsList = () =>
  timeCommand(process.execPath, [cliBin, 'tools', 'list', '--json'], { cwd: dir, env });

const { warmup, iterations } = iterationsFromEnv({ warmup: 2, iterations: 7 });
for (let i = 0; i < warmup; i++) {
  await toolsList();
  await spawnAndList();
}
const cli: number[] = [];
const floor: number[] = [];
for (let i = 0; i < iterations; i++) {
  cli.push(await toolsList());
  floor.push(await spawnAndList());
}
report(median(cli), {
  '(the servers alone: spawn, initialize, list)': median(floor),
  'overhead over the servers': median(cli.map((value, index) => value - floor[index]!)),
});
