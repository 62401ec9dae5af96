import { describe, expect, it } from 'vitest';
import { defineTool, toolContent } from './define-tool.js';
import {
  toolOutputToMcp,
  toolResultFromMcp,
  toolResultToMcp,
  type McpCallToolResult,
} from './mcp-tool-result.js';
import type { ToolResult } from './tool-result.js';

describe('toolResultFromMcp', () => {
  it('maps every MCP content type to a schema part', () => {
    const result = toolResultFromMcp(
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
      toolResultFromMcp({ id: 'c2', name: 't' }, { content: [], structuredContent: { n: 1 } }),
    ).toMatchObject({
      content: [{ type: 'json', value: { n: 1 } }],
      structuredContent: { n: 1 },
    });
  });

  it('turns isError into a failure whose message is the text', () => {
    expect(
      toolResultFromMcp(
        { id: 'c3', name: 't' },
        { content: [{ type: 'text', text: 'no such file' }], isError: true },
      ),
    ).toMatchObject({
      isError: true,
      error: { category: 'unknown', message: 'no such file' },
    });
  });
});

describe('toolResultToMcp', () => {
  const roundTrips: Array<[string, ToolResult]> = [
    [
      'text, image and every resource form',
      {
        toolCallId: 'c1',
        toolName: 't',
        isError: false,
        content: [
          { type: 'text', text: 'hello' },
          { type: 'image', data: 'AAAA', mediaType: 'image/png' },
          { type: 'resource', uri: 'file:///a.txt', mimeType: 'text/plain', text: 'a' },
          { type: 'resource', uri: 'file:///b.bin', blob: 'CCCC' },
          { type: 'resource', uri: 'file:///c.txt', mimeType: 'text/plain' },
        ],
      },
    ],
    [
      'structured content',
      {
        toolCallId: 'c2',
        toolName: 't',
        isError: false,
        content: [{ type: 'text', text: '{"n":1}' }],
        structuredContent: { n: 1 },
      },
    ],
    [
      'a failure with its category',
      {
        toolCallId: 'c3',
        toolName: 't',
        isError: true,
        content: [{ type: 'text', text: 'too fast' }],
        error: { category: 'rateLimited', message: 'too fast' },
      },
    ],
  ];

  it.each(roundTrips)('round-trips %s through MCP unchanged', (_name, result) => {
    expect(
      toolResultFromMcp({ id: result.toolCallId, name: result.toolName }, toolResultToMcp(result)),
    ).toEqual(result);
  });

  it('makes a URI-only resource a resource_link, never an embedded resource without text or blob', () => {
    expect(
      toolResultToMcp({
        toolCallId: 'c',
        toolName: 't',
        isError: false,
        content: [{ type: 'resource', uri: 'file:///only-uri' }],
      }).content,
    ).toEqual([{ type: 'resource_link', uri: 'file:///only-uri', name: 'file:///only-uri' }]);
  });

  it('turns JSON parts into their JSON text (MCP has no JSON block)', () => {
    expect(
      toolResultToMcp({
        toolCallId: 'c',
        toolName: 't',
        isError: false,
        content: [{ type: 'json', value: { a: [1] } }],
      }).content,
    ).toEqual([{ type: 'text', text: '{"a":[1]}' }]);
  });
});

describe('toolOutputToMcp', () => {
  it('maps toolContent parts block by block, a URI-only resource to a resource_link', () => {
    const expected: McpCallToolResult = {
      content: [
        { type: 'text', text: 'see' },
        { type: 'resource_link', uri: 'mem://x', name: 'mem://x' },
      ],
      isError: true,
    };
    expect(
      toolOutputToMcp(
        toolContent(
          [
            { type: 'text', text: 'see' },
            { type: 'resource', uri: 'mem://x' },
          ],
          {
            isError: true,
          },
        ),
      ),
    ).toEqual(expected);
  });

  it('answers a string as text and an object as JSON text plus structured content', async () => {
    expect(toolOutputToMcp('hi')).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    expect(toolOutputToMcp({ n: 1 })).toEqual({
      content: [{ type: 'text', text: '{"n":1}' }],
      structuredContent: { n: 1 },
    });
    expect(toolOutputToMcp([1])).toEqual({ content: [{ type: 'text', text: '[1]' }] });
    const tool = defineTool({
      name: 'nothing',
      description: 'returns nothing',
      inputSchema: { type: 'object' },
      execute: () => undefined,
    });
    expect(
      toolOutputToMcp(
        await tool.execute!({}, { toolCallId: 'x', signal: new AbortController().signal }),
      ),
    ).toEqual({
      content: [{ type: 'text', text: 'null' }],
    });
  });
});
