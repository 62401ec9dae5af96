import { describe, expect, it } from 'vitest';
import { toToolResult } from './to-tool-result.js';

describe('toToolResult', () => {
  it('maps every MCP content type to a schema part', () => {
    const result = toToolResult(
      { id: 'c1', name: 'fs__read' },
      {
        content: [
          { type: 'text', text: 'hello' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'audio', data: 'BBBB', mimeType: 'audio/wav' },
          {
            type: 'resource',
            resource: { uri: 'file:///a.bin', blob: 'CCCC', mimeType: 'application/octet-stream' },
          },
          { type: 'resource_link', uri: 'file:///b.txt', name: 'b.txt' },
        ],
      },
    );
    expect(result).toEqual({
      toolCallId: 'c1',
      toolName: 'fs__read',
      isError: false,
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', data: 'AAAA', mediaType: 'image/png' },
        { type: 'resource', uri: 'data:audio/wav;base64', mimeType: 'audio/wav', blob: 'BBBB' },
        {
          type: 'resource',
          uri: 'file:///a.bin',
          mimeType: 'application/octet-stream',
          blob: 'CCCC',
        },
        { type: 'resource', uri: 'file:///b.txt' },
      ],
    });
  });

  it('keeps structured content and shows it as JSON when there is no other content', () => {
    expect(
      toToolResult({ id: 'c2', name: 't' }, { content: [], structuredContent: { n: 1 } }),
    ).toMatchObject({
      content: [{ type: 'json', value: { n: 1 } }],
      structuredContent: { n: 1 },
    });
  });

  it('turns isError into a failure whose message is the text', () => {
    expect(
      toToolResult(
        { id: 'c3', name: 't' },
        { content: [{ type: 'text', text: 'no such file' }], isError: true },
      ),
    ).toMatchObject({
      isError: true,
      error: { category: 'unknown', message: 'no such file' },
    });
  });
});
