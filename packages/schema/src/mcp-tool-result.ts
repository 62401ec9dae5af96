import { isToolContentOutput } from './define-tool.js';
import { isPlainObject } from './json-schema.js';
import { isToolErrorCategory, type ToolErrorCategory } from './tool-error-category.js';
import type { ToolCall } from './tool-call.js';
import type { ToolResult, ToolResultPart } from './tool-result.js';

// The one mapping between a ToolResult and an MCP `CallToolResult`, both directions. The MCP
// shapes are written out here (schema depends on no MCP SDK); they are what the SDKs send.

export type McpTextContent = { type: 'text'; text: string; _meta?: Record<string, unknown> };
export type McpImageContent = { type: 'image'; data: string; mimeType: string };
export type McpAudioContent = { type: 'audio'; data: string; mimeType: string };
/** An embedded resource: MCP requires exactly one of `text` or `blob`. */
export type McpEmbeddedResource = {
  type: 'resource';
  resource:
    | { uri: string; mimeType?: string; text: string }
    | { uri: string; mimeType?: string; blob: string };
};
export type McpResourceLink = {
  type: 'resource_link';
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
};
export type McpContentBlock =
  McpTextContent | McpImageContent | McpAudioContent | McpEmbeddedResource | McpResourceLink;

/** An MCP `CallToolResult` (the fields Toolwire reads and writes). */
export type McpCallToolResult = {
  content: McpContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
};

/** Where a failed result's category travels in `_meta`, so it survives the MCP hop. */
export const TOOL_ERROR_CATEGORY_META = 'toolwire/category';

/**
 * One ToolResult part as an MCP content block. JSON becomes text (MCP has no JSON block); a
 * resource with `text` or `blob` is embedded, one with only a URI is a `resource_link`.
 */
export function toolResultPartToMcp(part: ToolResultPart): McpContentBlock {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'json':
      return { type: 'text', text: JSON.stringify(part.value) };
    case 'image':
      return { type: 'image', data: part.data, mimeType: part.mediaType };
    case 'resource': {
      const mimeType = part.mimeType !== undefined ? { mimeType: part.mimeType } : {};
      if (part.text !== undefined)
        return { type: 'resource', resource: { uri: part.uri, ...mimeType, text: part.text } };
      if (part.blob !== undefined)
        return { type: 'resource', resource: { uri: part.uri, ...mimeType, blob: part.blob } };
      return { type: 'resource_link', uri: part.uri, name: part.uri, ...mimeType };
    }
  }
}

/** A ToolResult as an MCP `CallToolResult`; a failure's category goes into `_meta`. */
export function toolResultToMcp(result: ToolResult): McpCallToolResult {
  return {
    content: result.content.map(toolResultPartToMcp),
    ...(isPlainObject(result.structuredContent)
      ? { structuredContent: result.structuredContent }
      : {}),
    ...(result.isError ? { isError: true } : {}),
    ...(result.error ? { _meta: { [TOOL_ERROR_CATEGORY_META]: result.error.category } } : {}),
  };
}

/**
 * What a tool's `execute` returned, as an MCP `CallToolResult`: `toolContent(...)` parts map
 * block by block; a string is text; anything else is its JSON text, and a plain object is also
 * the `structuredContent`.
 */
export function toolOutputToMcp(output: unknown): McpCallToolResult {
  if (isToolContentOutput(output)) {
    return {
      content: output.parts.map(toolResultPartToMcp),
      ...(output.isError ? { isError: true } : {}),
      ...(isPlainObject(output.structuredContent)
        ? { structuredContent: output.structuredContent }
        : {}),
    };
  }
  if (typeof output === 'string') return { content: [{ type: 'text', text: output }] };
  return {
    content: [{ type: 'text', text: JSON.stringify(output ?? null) }],
    ...(isPlainObject(output) ? { structuredContent: output } : {}),
  };
}

/** Anything shaped like an MCP result (an SDK's `CallToolResult`, a relayed JSON answer). */
export interface McpCallToolResultLike {
  content?: ReadonlyArray<{ type: string; [key: string]: unknown }>;
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/**
 * An MCP `CallToolResult` as a ToolResult: text, image, audio, embedded resources and resource
 * links become parts; `structuredContent` is kept (and becomes a JSON part when there is no other
 * content); `isError` becomes a failure whose message is the text and whose category is the one
 * in `_meta` (else `unknown`). An unknown block kind is kept as a JSON part.
 */
export function toolResultFromMcp(
  call: Pick<ToolCall, 'id' | 'name'>,
  result: McpCallToolResultLike,
): ToolResult {
  const parts: ToolResultPart[] = [];
  for (const block of result.content ?? []) {
    const mimeType = typeof block.mimeType === 'string' ? block.mimeType : undefined;
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: String(block.text ?? '') });
        break;
      case 'image':
        parts.push({ type: 'image', data: String(block.data ?? ''), mediaType: mimeType ?? '' });
        break;
      case 'audio':
        parts.push({
          type: 'resource',
          uri: `data:${mimeType ?? 'application/octet-stream'};base64`,
          ...(mimeType !== undefined ? { mimeType } : {}),
          blob: String(block.data ?? ''),
        });
        break;
      case 'resource': {
        const resource = (isPlainObject(block.resource) ? block.resource : {}) as Record<
          string,
          unknown
        >;
        parts.push({
          type: 'resource',
          uri: String(resource.uri ?? ''),
          ...(typeof resource.mimeType === 'string' ? { mimeType: resource.mimeType } : {}),
          ...(typeof resource.text === 'string' ? { text: resource.text } : {}),
          ...(typeof resource.blob === 'string' ? { blob: resource.blob } : {}),
        });
        break;
      }
      case 'resource_link':
        parts.push({
          type: 'resource',
          uri: String(block.uri ?? ''),
          ...(mimeType !== undefined ? { mimeType } : {}),
        });
        break;
      default:
        parts.push({ type: 'json', value: block });
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push({ type: 'json', value: result.structuredContent });
  const isError = result.isError === true;
  const text = parts
    .filter((part): part is Extract<ToolResultPart, { type: 'text' }> => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
  return {
    toolCallId: call.id,
    toolName: call.name,
    content: parts,
    isError,
    ...(result.structuredContent !== undefined
      ? { structuredContent: result.structuredContent }
      : {}),
    ...(isError
      ? {
          error: {
            category: mcpResultCategory(result),
            message: text || 'the tool reported an error',
          },
        }
      : {}),
  };
}

/** The category a failed MCP result carries in `_meta` (`unknown` when none). */
export function mcpResultCategory(result: McpCallToolResultLike): ToolErrorCategory {
  const category = result._meta?.[TOOL_ERROR_CATEGORY_META];
  return isToolErrorCategory(category) ? category : 'unknown';
}
