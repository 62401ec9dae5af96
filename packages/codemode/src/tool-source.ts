import {
  createToolHandler,
  generateToolCallId,
  toolResultToMcp,
  type AnyTool,
  type McpCallToolResultLike,
  type ToolResult,
  type ToolSource,
  type ToolSourceCallOptions,
  type ToolSourceTool,
} from '@toolwire/schema';

/** One content block of an MCP `CallToolResult` (text, image, audio, resource, resource_link, …). */
export type CallToolContent = NonNullable<McpCallToolResultLike['content']>[number];
/** The MCP `CallToolResult` shape: what a registry's `callTool` answers. */
export type CallToolResultLike = McpCallToolResultLike;
export type SourceTool = ToolSourceTool;
export type SourceCallOptions = ToolSourceCallOptions;

/**
 * Where code mode finds tools and sends calls: the `ToolSource` contract of `@toolwire/schema`.
 * `@toolwire/mcp`'s Registry satisfies it as is, so code mode calls through the registry's
 * long-lived connections; `toolSource(tools)` makes one from plain `@toolwire/schema` tools.
 */
export interface CodeModeToolSource extends ToolSource {
  /** Schema-level tools for direct calls; when absent, code mode builds them from `callTool`. */
  asTools?(): AnyTool[];
  /**
   * The servers behind the tools, with their `instructions` when they sent some: the
   * `execute_code` description gives one line per server (a registry's `servers()` fits).
   */
  servers?(): ReadonlyArray<{ name: string; instructions?: string | undefined }>;
}

/** A source over plain tools with `execute` (no MCP needed). */
export function toolSource(tools: readonly AnyTool[]): CodeModeToolSource {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const handler = createToolHandler(tools);
  return {
    listTools: () =>
      tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema as Record<string, unknown>,
        ...(tool.outputSchema !== undefined
          ? { outputSchema: tool.outputSchema as Record<string, unknown> }
          : {}),
        ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
      })),
    async callTool(name, args, options = {}) {
      const controller = new AbortController();
      const onAbort = () => controller.abort(options.signal?.reason);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const timer =
        options.timeoutMs !== undefined && options.timeoutMs > 0
          ? setTimeout(
              () => controller.abort(new Error(`timed out after ${options.timeoutMs} ms`)),
              options.timeoutMs,
            )
          : undefined;
      try {
        const result = await handler(
          { id: generateToolCallId(), name, arguments: args as Record<string, unknown> },
          { toolCallId: generateToolCallId(), signal: controller.signal },
        );
        return toolResultToMcp(result);
      } finally {
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      }
    },
    asTools: () => [...byName.values()],
  };
}

/**
 * A schema ToolResult in MCP `CallToolResult` form, so one unwrapping rule serves every source.
 * @deprecated Use `toolResultToMcp` from `@toolwire/schema` (the one MCP result mapping).
 */
export const toCallToolResult: (result: ToolResult) => CallToolResultLike = toolResultToMcp;
