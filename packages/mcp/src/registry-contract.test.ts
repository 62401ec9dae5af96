import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { runToolSourceContract } from '@toolwire/testing/tool-source';
import { createRegistry } from './node-registry.js';

runToolSourceContract({
  name: '@toolwire/mcp registry (native tools + a stdio MCP server)',
  announcesChanges: true,
  setup: async () => {
    const registry = createRegistry({
      config: { mcpServers: { fx: fixtureStdioConfig() } },
      connectTimeoutMs: 15_000,
      logger: { warn: () => undefined, info: () => undefined },
    });
    await registry.start();
    return {
      source: registry,
      call: { name: 'fx__echo', args: { text: 'over stdio' }, text: 'echo: over stdio' },
      changeTools: async () => {
        await registry.callTool('fx__change_tools', { add: 'extra' });
      },
      close: () => registry.close(),
    };
  },
});
