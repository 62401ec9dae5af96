import {
  getSchemaValidator,
  isToolContentOutput,
  type AnyTool,
  type ToolResultPart,
} from '@toolwire/schema';
import type { CallToolResult } from './tool-source.js';

function partToContent(part: ToolResultPart): unknown {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'json':
      return { type: 'text', text: JSON.stringify(part.value) };
    case 'image':
      return { type: 'image', data: part.data, mimeType: part.mediaType };
    case 'resource':
      return {
        type: 'resource',
        resource: {
          uri: part.uri,
          ...(part.mimeType ? { mimeType: part.mimeType } : {}),
          ...(part.blob !== undefined ? { blob: part.blob } : { text: part.text ?? '' }),
        },
      };
  }
}

/** Runs a `@toolwire/schema` tool in process and answers with an MCP `CallToolResult`. */
export async function runNativeTool(
  tool: AnyTool,
  args: unknown,
  context: {
    signal: AbortSignal;
    toolCallId: string;
    onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
  },
): Promise<CallToolResult> {
  if (!tool.execute) {
    return {
      content: [{ type: 'text', text: `Tool "${tool.name}" has no implementation` }],
      isError: true,
    };
  }
  const output: unknown = await tool.execute(args as Record<string, unknown>, context);
  if (isToolContentOutput(output)) {
    return {
      content: output.parts.map(partToContent),
      ...(output.isError ? { isError: true } : {}),
      ...(output.structuredContent !== undefined
        ? { structuredContent: output.structuredContent }
        : {}),
    };
  }
  const text = typeof output === 'string' ? output : JSON.stringify(output ?? null);
  const result: CallToolResult = { content: [{ type: 'text', text }] };
  if (tool.outputSchema && output !== null && typeof output === 'object') {
    const checked = getSchemaValidator(tool.outputSchema).validate(output);
    if (checked.success) result.structuredContent = output;
  }
  return result;
}
