import type { CallToolResult } from '@modelcontextprotocol/client';
import type { ToolCall, ToolResult, ToolResultPart } from '@toolwire/schema';

/**
 * An MCP `CallToolResult` as a `@toolwire/schema` ToolResult: text, image, audio, embedded
 * resources and resource links become parts; `structuredContent` is kept (and becomes a JSON part
 * when there is no other content); `isError` becomes a failure whose message is the text.
 */
export function toToolResult(
  call: Pick<ToolCall, 'id' | 'name'>,
  result: CallToolResult,
): ToolResult {
  const parts: ToolResultPart[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: block.text });
        break;
      case 'image':
        parts.push({ type: 'image', data: block.data, mediaType: block.mimeType });
        break;
      case 'audio':
        parts.push({
          type: 'resource',
          uri: `data:${block.mimeType};base64`,
          mimeType: block.mimeType,
          blob: block.data,
        });
        break;
      case 'resource': {
        const resource = block.resource as {
          uri: string;
          mimeType?: string;
          text?: string;
          blob?: string;
        };
        parts.push({
          type: 'resource',
          uri: resource.uri,
          ...(resource.mimeType !== undefined ? { mimeType: resource.mimeType } : {}),
          ...(typeof resource.text === 'string' ? { text: resource.text } : {}),
          ...(typeof resource.blob === 'string' ? { blob: resource.blob } : {}),
        });
        break;
      }
      case 'resource_link':
        parts.push({
          type: 'resource',
          uri: block.uri,
          ...(block.mimeType !== undefined ? { mimeType: block.mimeType } : {}),
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
            category: errorCategoryOf(result),
            message: text || 'the tool reported an error',
          },
        }
      : {}),
  };
}

function errorCategoryOf(
  result: CallToolResult,
):
  | 'invalidArguments'
  | 'networkError'
  | 'executionTimeout'
  | 'cancelled'
  | 'resourceNotFound'
  | 'unknown' {
  const category = (result._meta as Record<string, unknown> | undefined)?.['toolwire/category'];
  return category === 'invalidArguments' ||
    category === 'networkError' ||
    category === 'executionTimeout' ||
    category === 'cancelled' ||
    category === 'resourceNotFound'
    ? category
    : 'unknown';
}
