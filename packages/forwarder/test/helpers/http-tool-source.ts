// A minimal ToolSource over HTTP upstreams, for tests, the benchmark and the conformance run
// while (and where) a full `@toolwire/mcp` registry is not wanted. It lists each upstream's
// tools once at start and on refresh(), namespacing them as `<server>__<tool>`.
import { HttpUpstream } from '../../src/http-upstream.js';
import type {
  CallToolResult,
  SourceServer,
  SourceTool,
  ToolSource,
} from '../../src/tool-source.js';

export interface HttpToolSource extends ToolSource {
  start(): Promise<void>;
  refresh(server: string): Promise<void>;
  close(): Promise<void>;
  /** Marks a server down (as a registry would after losing it). */
  setStatus(server: string, status: SourceServer['status']): void;
}

export function createHttpToolSource(
  servers: Record<string, string>,
  separator = '__',
): HttpToolSource {
  const clients = new Map(
    Object.entries(servers).map(([name, url]) => [name, new HttpUpstream({ name, url })]),
  );
  const tools = new Map<string, SourceTool[]>();
  const status = new Map<string, SourceServer['status']>();
  const listeners = new Set<(event: { server: string }) => void>();

  async function load(server: string): Promise<void> {
    const client = clients.get(server)!;
    try {
      const result = (await client.request('tools/list', {}, { timeoutMs: 5000 })) as {
        tools: Array<Record<string, unknown>>;
      };
      tools.set(
        server,
        result.tools.map((tool) => ({
          name: `${server}${separator}${String(tool.name)}`,
          originalName: String(tool.name),
          source: server,
          description: tool.description as string | undefined,
          inputSchema: tool.inputSchema as SourceTool['inputSchema'],
          ...(tool.annotations
            ? { annotations: tool.annotations as SourceTool['annotations'] }
            : {}),
          status: 'ok' as const,
        })),
      );
      status.set(server, 'ok');
    } catch {
      status.set(server, 'down');
    }
  }

  return {
    async start() {
      await Promise.all([...clients.keys()].map(load));
    },
    async refresh(server) {
      await load(server);
      for (const listener of listeners) listener({ server });
    },
    setStatus(server, value) {
      status.set(server, value);
    },
    listTools: () => [...tools.values()].flat(),
    servers: () =>
      [...clients.keys()].map((name) => ({
        name,
        status: status.get(name) ?? 'connecting',
        tools: tools.get(name)?.length ?? 0,
        transport: 'http',
      })),
    resolve(name) {
      const tool = [...tools.values()].flat().find((t) => t.name === name);
      return tool ? { source: tool.source, originalName: tool.originalName } : undefined;
    },
    async callTool(name, args, options = {}): Promise<CallToolResult> {
      const tool = [...tools.values()].flat().find((t) => t.name === name);
      if (!tool) throw new Error(`Unknown tool ${name}`);
      return (await clients
        .get(tool.source)!
        .request(
          'tools/call',
          { name: tool.originalName, arguments: args },
          { signal: options.signal, timeoutMs: options.timeoutMs },
        )) as CallToolResult;
    },
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      await Promise.all([...clients.values()].map((c) => c.close()));
    },
  };
}
