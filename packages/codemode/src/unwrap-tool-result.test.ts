import { ToolExecutionError } from '@toolwire/schema';
import { describe, expect, it } from 'vitest';
import { unwrapToolResult } from './unwrap-tool-result.js';

describe('unwrapToolResult', () => {
  it('throws the text of an error result, with the category when the source gave one', () => {
    let thrown: unknown;
    try {
      unwrapToolResult('t', {
        content: [{ type: 'text', text: 'file not found' }],
        isError: true,
        _meta: { 'toolwire/category': 'resourceNotFound' },
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ToolExecutionError);
    expect(thrown).toMatchObject({ message: 'file not found', category: 'resourceNotFound' });
  });

  it('prefers structured content', () => {
    expect(
      unwrapToolResult('t', {
        content: [{ type: 'text', text: 'ignored' }],
        structuredContent: { a: 1 },
      }),
    ).toEqual({ a: 1 });
  });

  it('parses JSON text, keeps other text, and returns several blocks as an array', () => {
    expect(unwrapToolResult('t', { content: [{ type: 'text', text: '{"a":[1,2]}' }] })).toEqual({
      a: [1, 2],
    });
    expect(unwrapToolResult('t', { content: [{ type: 'text', text: 'hello' }] })).toBe('hello');
    expect(unwrapToolResult('t', { content: [{ type: 'text', text: '42' }] })).toBe('42');
    expect(unwrapToolResult('t', { content: [{ type: 'text', text: '[1' }] })).toBe('[1');
    expect(
      unwrapToolResult('t', {
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: '[1]' },
        ],
      }),
    ).toEqual(['a', [1]]);
    expect(unwrapToolResult('t', { content: [] })).toBeNull();
  });

  it('returns mixed or binary content blocks as they are', () => {
    const content = [
      { type: 'text', text: 'an image:' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    ];
    expect(unwrapToolResult('t', { content })).toEqual(content);
  });
});
