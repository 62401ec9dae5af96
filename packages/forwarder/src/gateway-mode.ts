import {
  findGatewayTarget,
  GATEWAY_INPUT_SCHEMA,
  gatewayDescription,
  gatewayListing,
  gatewayToolDescription,
  parseGatewayRequest,
  ToolExecutionError,
  type GatewayTarget,
} from '@toolwire/schema';
import type { AuthToken, ToolwireConfig } from '@toolwire/config';
import type { CallContext } from './call/call-context.js';
import type { CallPipeline } from './call/call-pipeline.js';
import { NATIVE, type ToolEntry } from './call/tool-index.js';
import { structuredResult, errorResult } from './call/tool-results.js';
import type { CallToolResult, ToolSource } from './tool-source.js';
import { namespacedToolMeta } from './ui-resources.js';

/** `tools/list` entries carry these under `_meta` (SPEC: the `toolwire/` prefix). */
export const META_SOURCE = 'toolwire/source';
export const META_SERVER = 'toolwire/server';
export const META_ORIGINAL_NAME = 'toolwire/originalName';
export const META_STATUS = 'toolwire/status';
export const META_GATEWAY = 'toolwire/gateway';

/** Is this upstream behind a gateway tool? `mcpServers.<name>.gateway` overrides `gateway.mode`. */
export function isGatewayed(config: ToolwireConfig, server: string): boolean {
  const own = config.mcpServers?.[server]?.gateway;
  return own ?? config.gateway?.mode === 'gateway';
}

/** One entry of an aggregated `tools/list` answer. */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  execution?: unknown;
  _meta: Record<string, unknown>;
}

interface Target extends GatewayTarget {
  exposed: string;
}

/**
 * Gateway mode on the aggregated route (seed 004): the tools of a gatewayed upstream are listed as
 * one tool named after the server, whose `execute` action calls the real tool through the same
 * pipeline as a direct call (policy, tokens, rate limits, cache, audit under the real name).
 */
export class GatewayMode {
  constructor(
    private readonly pipeline: CallPipeline,
    private readonly source: ToolSource,
  ) {}

  private get config(): ToolwireConfig {
    return this.pipeline.config;
  }

  /** Gatewayed upstreams (enabled ones) and the name of each one's gateway tool. */
  private gatewayNames(): Map<string, string> {
    const out = new Map<string, string>();
    const taken = new Set(this.pipeline.tools().keys());
    for (const server of this.source.servers()) {
      if (server.status === 'disabled' || !isGatewayed(this.config, server.name)) continue;
      // A server never shadows a native or direct tool of the same name.
      let name = server.name;
      if (taken.has(name)) name = `${server.name}${this.pipeline.separator}gateway`;
      taken.add(name);
      out.set(server.name, name);
    }
    return out;
  }

  /**
   * The upstream behind a gateway tool name, if `name` is one the client reaches (the gateway tool
   * of an upstream it does not reach is, to it, a tool that does not exist).
   */
  serverOf(name: string, token?: AuthToken): string | undefined {
    if (this.pipeline.tools().has(name)) return undefined;
    for (const [server, tool] of this.gatewayNames())
      if (tool === name) return this.pipeline.reaches(server, token) ? server : undefined;
    return undefined;
  }

  /**
   * The aggregated `tools/list`: direct tools as they are, one gateway tool per gatewayed upstream
   * the client reaches.
   */
  list(visible: readonly ToolEntry[], token?: AuthToken): ListedTool[] {
    const gateways = this.gatewayNames();
    const out: ListedTool[] = [];
    const counts = new Map<string, number>();
    for (const entry of visible) {
      if (gateways.has(entry.server)) {
        counts.set(entry.server, (counts.get(entry.server) ?? 0) + 1);
        continue;
      }
      out.push(listedTool(entry, entry.tool.name, this.pipeline.separator));
    }
    for (const [server, name] of gateways) {
      if (!this.pipeline.reaches(server, token)) continue;
      const known = this.source.servers().find((s) => s.name === server)?.tools ?? 0;
      const visibleCount = counts.get(server) ?? 0;
      // Listed when the client may use one of its tools, or when none are known yet (lazy).
      if (visibleCount === 0 && known > 0) continue;
      out.push({
        name,
        description: gatewayToolDescription(server, visibleCount || undefined),
        inputSchema: GATEWAY_INPUT_SCHEMA,
        annotations: { title: `${server} tools` },
        _meta: { [META_SOURCE]: 'forwarded', [META_SERVER]: server, [META_GATEWAY]: true },
      });
    }
    return out;
  }

  /**
   * Runs one gateway-tool call; a wrong call answers `isError` with what to send instead. `server`
   * comes from `serverOf`, which the client reaches: only then is an idle upstream started.
   */
  async call(server: string, args: unknown, context: CallContext): Promise<CallToolResult> {
    try {
      const request = parseGatewayRequest(args);
      const info = this.source.servers().find((s) => s.name === server);
      if (info && (info.status === 'idle' || info.status === 'down') && this.source.connect) {
        // Lazy upstreams connect on first use; a failure shows as the server's status below.
        await this.source.connect(server).catch(() => undefined);
      }
      const tools = this.targets(server, context.token);
      if (request.action === 'list') {
        const state = this.source.servers().find((s) => s.name === server) ?? {};
        return structuredResult(gatewayListing(server, state, tools));
      }
      const target = findGatewayTarget(server, request, tools, (tool) => tool.exposed);
      if (request.action === 'describe') return structuredResult(gatewayDescription(target));
      return await this.pipeline.call(target.exposed, request.arguments, context);
    } catch (error) {
      if (error instanceof ToolExecutionError) {
        return errorResult(error.toModelText());
      }
      throw error;
    }
  }

  private targets(server: string, token: AuthToken | undefined): Target[] {
    return this.pipeline.visibleTools(token, server).tools.map(({ tool }) => ({
      name: tool.originalName,
      exposed: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
      status: tool.status ?? 'ok',
    }));
  }
}

/** A tool as `tools/list` shows it, with its `_meta` (`name` is the exposed or route-local name). */
/** `_meta` of a listed tool whose definition changed since it was approved. */
export const META_PIN = 'toolwire/pin';

export function listedTool(
  entry: ToolEntry,
  name = entry.tool.name,
  /** The namespace separator on the aggregated route: the `ui://` resource a tool names is namespaced. */
  uiSeparator?: string,
): ListedTool {
  const { tool } = entry;
  const native = entry.server === NATIVE;
  // The upstream's own `_meta` (an MCP App's `ui`, anything else it says), under ours.
  const own = tool.meta
    ? uiSeparator !== undefined
      ? namespacedToolMeta(entry.server, tool.meta, uiSeparator)
      : tool.meta
    : {};
  const meta: Record<string, unknown> = {
    ...own,
    [META_SOURCE]: native ? 'native' : 'forwarded',
    [META_SERVER]: native ? NATIVE : entry.server,
    [META_ORIGINAL_NAME]: tool.originalName,
  };
  if (tool.status !== undefined && tool.status !== 'ok') meta[META_STATUS] = tool.status;
  // Served although its definition differs from the one approved (policy.pinning.mode "warn").
  if (entry.pin?.status === 'changed')
    meta[META_PIN] = { status: 'changed', hash: entry.pin.hash, approved: entry.pin.pinned?.hash };
  return {
    name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    ...(tool.execution ? { execution: tool.execution } : {}),
    _meta: meta,
  };
}
