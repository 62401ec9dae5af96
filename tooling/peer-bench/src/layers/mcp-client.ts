// The MCP client layer: one stdio MCP server, one tool called again and again, one call at a time.
import { fileURLToPath } from 'node:url';
import type { Layer } from '../harness.js';

const script = (name: string) =>
  fileURLToPath(new URL(`../contenders/mcp-client/${name}.ts`, import.meta.url));

export const mcpClientLayers = (): Layer[] => [
  {
    name: 'MCP client, per call over stdio',
    unit: 'ms/op',
    contenders: [
      { name: 'toolwire registry.callTool', role: 'toolwire', script: script('toolwire') },
      { name: '@ai-sdk/mcp callTool', role: 'peer', script: script('ai-sdk') },
      { name: '@langchain/mcp-adapters tool.invoke', role: 'peer', script: script('langchain') },
      { name: 'MCP SDK client.callTool', role: 'floor', script: script('mcp-sdk') },
    ],
    goals: [
      { subject: 'toolwire registry.callTool', against: 'MCP SDK client.callTool', ratio: 1.05 },
      { subject: 'toolwire registry.callTool', against: '@ai-sdk/mcp callTool', ratio: 1.0 },
    ],
    notes: [
      "One op: a `tools/call` of the `echo` tool of @toolwire/testing's fixture MCP server (on @modelcontextprotocol/server, no delay), spawned over stdio by each contender; after connecting and listing, 300 warm-up calls, then 2,000 timed, one after another, in 20 batches (the median batch counts).",
    ],
  },
  {
    name: "stdio round trip, server in the caller's session vs its own (diagnostic)",
    unit: 'ms/op',
    contenders: [
      {
        name: 'raw JSON-RPC, same session',
        role: 'floor',
        script: script('stdio-session-probe'),
      },
      {
        name: 'raw JSON-RPC, own session (detached)',
        role: 'peer',
        script: script('stdio-session-probe'),
        args: ['--detached'],
      },
    ],
    goals: [],
    notes: [
      'Whether the layer above depends on how the server is spawned: the same calls written by hand, the server spawned as the SDKs do (same session) or as Toolwire does (`detached`, its own session and process group, so it can be stopped as a tree). With Linux autogroup scheduling a server in a session of its own can wait longer per round trip on a loaded CPU; on a quiet one it has not.',
    ],
  },
];
