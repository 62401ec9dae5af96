import type { CallToolResult } from '../tool-source.js';

/** A tool result of one text block. */
function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** A tool result of one text block marked `isError`: what a model reads of a refused or failed call. */
export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** A result whose structured content is `value`, with its JSON as text for clients without it. */
export function structuredResult(value: Record<string, unknown>): CallToolResult {
  return { ...textResult(JSON.stringify(value)), structuredContent: value };
}
