import {
  getSchemaValidator,
  isToolContentOutput,
  toolOutputToMcp,
  type AnyTool,
  type ToolExecutionContext,
} from '@toolwire/schema';
import { errorResult } from './tool-results.js';
import type { CallToolResult } from '../tool-source.js';

/** Runs a `@toolwire/schema` tool in process and answers with an MCP `CallToolResult`. */
export async function runNativeTool(
  tool: AnyTool,
  args: unknown,
  context: ToolExecutionContext,
): Promise<CallToolResult> {
  if (!tool.execute) {
    return errorResult(`Tool "${tool.name}" has no implementation`);
  }
  const output: unknown = await tool.execute(args as Record<string, unknown>, context);
  const result: CallToolResult = toolOutputToMcp(output);
  // A plain value is structured content only where the tool declares an output schema it meets.
  if (!isToolContentOutput(output) && result.structuredContent !== undefined) {
    const valid =
      tool.outputSchema !== undefined &&
      getSchemaValidator(tool.outputSchema).validate(output).success;
    if (!valid) delete result.structuredContent;
  }
  return result;
}
