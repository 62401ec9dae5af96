import type { CallToolResult } from '@modelcontextprotocol/client';
import {
  findGatewayTarget,
  GATEWAY_INPUT_SCHEMA,
  gatewayDescription,
  gatewayListing,
  gatewayToolDescription,
  parseGatewayRequest,
  toolContent,
  toolResultFromMcp,
  type AnyTool,
} from '@toolwire/schema';
import { assignToolNames, type NamingEntry } from './naming.js';
import type { Registry, RegistryTool } from './registry-types.js';

/** The name of the cross-server search tool in gateway mode. */
export const SEARCH_TOOL_NAME = 'search';

type GatewayRegistry = Pick<
  Registry,
  'listTools' | 'servers' | 'callTool' | 'search' | 'connect'
> & {
  toSchemaTool(tool: RegistryTool): AnyTool;
};

/**
 * Gateway-tool mode (seed 004), for large catalogues: one tool per MCP server with
 * `action: list | describe | execute`, the native tools as themselves, and `search` over every
 * tool's name and description. The model lists or searches first, then executes by the tool's
 * own (server-side) name. A server that is down still lists its last known tools, marked unavailable.
 */
export function createGatewayTools(
  registry: GatewayRegistry,
  natives: readonly AnyTool[],
): AnyTool[] {
  const tools = registry.listTools();
  const servers = registry.servers().filter((server) => server.status !== 'disabled');
  const entries: NamingEntry[] = [
    ...tools
      .filter((tool) => tool.source === 'native')
      .map((tool) => ({
        key: `native:${tool.name}`,
        source: 'native',
        originalName: tool.name,
        prefix: '',
        priority: 0,
        order: -1,
      })),
    {
      key: 'native:search',
      source: 'native',
      originalName: SEARCH_TOOL_NAME,
      prefix: '',
      priority: 0,
      order: -1,
    },
    ...servers.map((server, order) => ({
      key: `server:${server.name}`,
      source: server.name,
      originalName: server.name,
      prefix: '',
      priority: 0,
      order,
    })),
  ];
  const { names } = assignToolNames(entries, { strategy: 'flat' });

  const out: AnyTool[] = tools
    .filter((tool) => tool.source === 'native' && natives.some((n) => n.name === tool.originalName))
    .map((tool) => registry.toSchemaTool(tool));
  out.push(searchTool(registry, names.get('native:search')!));
  for (const server of servers)
    out.push(serverTool(registry, server.name, names.get(`server:${server.name}`)!));
  return out;
}

function searchTool(registry: GatewayRegistry, name: string): AnyTool {
  return {
    name,
    description:
      'Search every tool of every connected MCP server by name and description. Returns the best matches with the server tool and action to use to run each.',
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          description: 'Words describing what you want to do, e.g. "read a file" or "add numbers".',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: 50,
          description: 'How many results (default 10).',
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { title: 'Search tools', readOnlyHint: true, openWorldHint: false },
    execute: (args: { query: string; limit?: number }) => {
      const hits = registry.search(args.query, { limit: args.limit ?? 10 });
      return hits.map((hit) => ({
        server: hit.source,
        tool: hit.originalName,
        description: hit.description,
        status: hit.status,
        call:
          hit.source === 'native'
            ? { tool: hit.name }
            : {
                tool: hit.source,
                arguments: { action: 'execute', tool: hit.originalName, arguments: {} },
              },
      }));
    },
  };
}

function serverTool(registry: GatewayRegistry, server: string, name: string): AnyTool {
  const info = registry.servers().find((s) => s.name === server);
  return {
    name,
    description: gatewayToolDescription(server, info?.tools),
    inputSchema: GATEWAY_INPUT_SCHEMA,
    execute: async (args: unknown, context: { signal: AbortSignal; toolCallId: string }) => {
      const request = parseGatewayRequest(args);
      // Lazy registries connect a server the first time the model asks about it.
      if (registry.servers().find((s) => s.name === server)?.status === 'idle')
        await registry.connect(server);
      const own = registry
        .listTools()
        .filter((tool) => tool.source === server)
        .map((tool) => ({ ...tool, name: tool.originalName, exposedName: tool.name }));
      if (request.action === 'list') {
        const state = registry.servers().find((s) => s.name === server) ?? {};
        return gatewayListing(server, state, own);
      }
      const target = findGatewayTarget(server, request, own, (tool) => tool.exposedName);
      if (request.action === 'describe') return gatewayDescription(target);
      const result: CallToolResult = await registry.callTool(
        target.exposedName,
        request.arguments,
        { signal: context.signal },
      );
      const converted = toolResultFromMcp(
        { id: context.toolCallId, name: target.exposedName },
        result,
      );
      return toolContent(converted.content, {
        isError: converted.isError,
        ...(converted.structuredContent !== undefined
          ? { structuredContent: converted.structuredContent }
          : {}),
      });
    },
  };
}
