import type { CallToolResult } from '@modelcontextprotocol/client';
import { ToolExecutionError, toolContent, toolResultFromMcp, type AnyTool } from '@toolwire/schema';
import { assignToolNames, type NamingEntry } from './naming.js';
import type { Registry, RegistryTool } from './registry.js';

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
    description: `Gateway to the tools of MCP server "${server}"${info?.tools ? ` (${info.tools} tools)` : ''}. action "list" lists them, "describe" shows one tool's input schema, "execute" runs one with its arguments.`,
    inputSchema: {
      type: 'object',
      properties: {
        action: {
          type: 'string',
          enum: ['list', 'describe', 'execute'],
          description: 'list, describe or execute.',
        },
        tool: {
          type: 'string',
          description: 'For describe and execute: the tool name as shown by list.',
        },
        arguments: {
          type: 'object',
          description: 'For execute: the arguments of the tool, matching its input schema.',
        },
      },
      required: ['action'],
      additionalProperties: false,
    },
    execute: async (
      args: {
        action: 'list' | 'describe' | 'execute';
        tool?: string;
        arguments?: Record<string, unknown>;
      },
      context: { signal: AbortSignal; toolCallId: string },
    ) => {
      // Lazy registries connect a server the first time the model asks about it.
      if (registry.servers().find((s) => s.name === server)?.status === 'idle')
        await registry.connect(server);
      const own = registry.listTools().filter((tool) => tool.source === server);
      if (args.action === 'list') {
        const status = registry.servers().find((s) => s.name === server);
        return {
          server,
          status: status?.status,
          ...(status?.reason ? { reason: status.reason } : {}),
          tools: own.map((tool) => ({
            name: tool.originalName,
            description: firstSentence(tool.description),
            ...(tool.status !== 'ok' ? { status: tool.status } : {}),
          })),
        };
      }
      if (!args.tool)
        throw new ToolExecutionError({
          category: 'invalidArguments',
          message: `action "${args.action}" needs "tool" (one of: ${own.map((t) => t.originalName).join(', ')})`,
        });
      const target =
        own.find((tool) => tool.originalName === args.tool) ??
        own.find((tool) => tool.name === args.tool);
      if (!target) {
        throw new ToolExecutionError({
          category: 'resourceNotFound',
          message: `server "${server}" has no tool "${args.tool}"; use action "list" to see its tools`,
          details: { available: own.map((t) => t.originalName).join(', ') },
        });
      }
      if (args.action === 'describe') {
        return {
          name: target.originalName,
          description: target.description,
          inputSchema: target.inputSchema,
          ...(target.outputSchema ? { outputSchema: target.outputSchema } : {}),
          ...(target.annotations ? { annotations: target.annotations } : {}),
          status: target.status,
        };
      }
      const result: CallToolResult = await registry.callTool(target.name, args.arguments ?? {}, {
        signal: context.signal,
      });
      const converted = toolResultFromMcp({ id: context.toolCallId, name: target.name }, result);
      return toolContent(converted.content, {
        isError: converted.isError,
        ...(converted.structuredContent !== undefined
          ? { structuredContent: converted.structuredContent }
          : {}),
      });
    },
  };
}

function firstSentence(text: string): string {
  const line = text.split('\n')[0] ?? text;
  return line.length > 160 ? `${line.slice(0, 157)}…` : line;
}
