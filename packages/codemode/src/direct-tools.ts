import {
  ToolExecutionError,
  toolContent,
  toolFailureFromError,
  type AnyTool,
} from '@toolwire/schema';
import type { CodeModeToolSource, SourceTool } from './tool-source.js';
import { unwrapToolResult } from './unwrap-tool-result.js';

/** The tools code mode leaves direct, as tools a model calls by name through the source. */
export function directToolsOf(
  source: CodeModeToolSource,
  sourceTools: readonly SourceTool[],
  names: ReadonlySet<string>,
): AnyTool[] {
  if (names.size === 0) return [];
  if (source.asTools) return source.asTools().filter((tool) => names.has(tool.name));
  return sourceTools
    .filter((tool) => names.has(tool.name))
    .map((tool) => ({
      name: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
      ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
      execute: async (args: Record<string, unknown>, context) => {
        const result = await source.callTool(tool.name, args, { signal: context.signal });
        if (result.isError) throw toolErrorOf(tool.name, result);
        return toolContent(
          (result.content ?? []).map((block) =>
            block.type === 'text'
              ? { type: 'text' as const, text: String(block.text) }
              : block.type === 'image'
                ? {
                    type: 'image' as const,
                    data: String(block.data),
                    mediaType: String(block.mimeType),
                  }
                : { type: 'json' as const, value: block },
          ),
          result.structuredContent !== undefined
            ? { structuredContent: result.structuredContent }
            : {},
        );
      },
    }));
}

function toolErrorOf(
  toolName: string,
  result: Parameters<typeof unwrapToolResult>[1],
): ToolExecutionError {
  try {
    unwrapToolResult(toolName, result);
  } catch (error) {
    if (error instanceof ToolExecutionError) return error;
    return new ToolExecutionError({ ...toolFailureFromError(error) });
  }
  return new ToolExecutionError({ category: 'unknown', message: `${toolName} reported an error` });
}
