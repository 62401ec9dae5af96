import { ToolExecutionError, mcpResultCategory } from '@toolwire/schema';
import type { CallToolResultLike } from './tool-source.js';

/**
 * What a tool call returns inside the script, from an MCP `CallToolResult`:
 * 1. `isError` → throws a `ToolExecutionError` whose message is the result's text;
 * 2. `structuredContent` when present;
 * 3. text-only content → each block parsed as JSON when it is JSON, else the string (one block → the
 *    value, several → an array);
 * 4. anything else (images, audio, resources) → the content blocks as they are.
 */
export function unwrapToolResult(toolName: string, result: CallToolResultLike): unknown {
  const content = Array.isArray(result.content) ? result.content : [];
  if (result.isError === true) {
    const text = content
      .filter((block) => block.type === 'text' && typeof block.text === 'string')
      .map((block) => block.text as string)
      .join('\n');
    throw new ToolExecutionError({
      category: mcpResultCategory(result),
      message:
        text.replace(/^Tool execution failed \([a-zA-Z]+\): /, '') ||
        `${toolName} reported an error`,
      details: { tool: toolName },
    });
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null)
    return result.structuredContent;
  if (content.length === 0) return null;
  if (content.every((block) => block.type === 'text' && typeof block.text === 'string')) {
    const values = content.map((block) => parseMaybeJson(block.text as string));
    return values.length === 1 ? values[0] : values;
  }
  return content;
}

function parseMaybeJson(text: string): unknown {
  const trimmed = text.trim();
  // Only objects, arrays and quoted strings: "42" or "true" as text stay the text the tool wrote.
  if (!/^[[{"]/.test(trimmed)) return text;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return text;
  }
}
