import type { CallToolResult } from '@modelcontextprotocol/client';
import { validateAgainstSchema } from '@toolwire/schema';
import type { RegistryTool } from './registry-types.js';

/** Checks structured content against the tool's output schema; a mismatch becomes an error result. */
export function checkStructuredContent(result: CallToolResult, tool: RegistryTool): CallToolResult {
  const content = Array.isArray(result.content) ? result.content : [];
  const normalised: CallToolResult = { ...result, content };
  if (result.isError === true || !tool.outputSchema) return normalised;
  if (result.structuredContent === undefined) {
    return {
      content: [
        {
          type: 'text',
          text: `Tool "${tool.name}" declares an output schema but returned no structured content`,
        },
        ...content,
      ],
      isError: true,
    };
  }
  const checked = validateAgainstSchema(tool.outputSchema, result.structuredContent);
  if (!checked.success) {
    return {
      content: [
        {
          type: 'text',
          text: `Tool "${tool.name}" returned structured content that does not match its output schema: ${checked.issues.map((i) => `${i.pointer || '/'}: ${i.message}`).join('; ')}`,
        },
        ...content,
      ],
      isError: true,
    };
  }
  return normalised;
}
