// Captures the tool lists of the three npm MCP servers (memory, filesystem, everything) over stdio
// into fixtures/npm-mcp-tools.json, which the benchmark reads. Run: pnpm exec tsx scripts/capture-tools.ts
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRegistry } from '@toolwire/mcp/node';

const require = createRequire(import.meta.url);
const bin = (pkg: string) => require.resolve(`@modelcontextprotocol/${pkg}/dist/index.js`);
const dir = mkdtempSync(path.join(tmpdir(), 'toolwire-capture-'));
const registry = createRegistry({
  config: {
    mcpServers: {
      memory: {
        command: process.execPath,
        args: [bin('server-memory')],
        env: { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') },
      },
      fs: { command: process.execPath, args: [bin('server-filesystem'), dir] },
      everything: { command: process.execPath, args: [bin('server-everything'), 'stdio'] },
    },
    nativeTools: [],
  },
});
await registry.start();
const servers = registry.servers();
const tools = registry
  .listTools()
  .map(({ name, originalName, source, description, inputSchema, outputSchema, annotations }) => ({
    name,
    originalName,
    source,
    description,
    inputSchema,
    ...(outputSchema ? { outputSchema } : {}),
    ...(annotations ? { annotations } : {}),
  }));
await registry.close();
const out = new URL('../fixtures/npm-mcp-tools.json', import.meta.url);
writeFileSync(
  out,
  `${JSON.stringify({ servers: servers.map((s) => ({ name: s.name, status: s.status, serverInfo: s.serverInfo, tools: s.tools })), tools }, null, 2)}\n`,
);
console.log(
  servers.map((s) => `${s.name}: ${s.status} ${s.tools} tools ${s.reason ?? ''}`).join('\n'),
);
