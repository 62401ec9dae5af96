import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { checkDefinitions } from './definition-checks.js';

const tool = (name: string, inputSchema: unknown = { type: 'object' }): McpTool =>
  ({ name, inputSchema }) as McpTool;

describe('checkDefinitions', () => {
  it('keeps usable tools in order and says why each other one is left out', () => {
    const { accepted, rejected } = checkDefinitions([
      tool('a'),
      tool(''),
      tool('b', 'not a schema'),
      tool('a', { type: 'object', properties: { x: { type: 'string' } } }),
      tool('c', { type: 'array' }),
      tool('d'),
    ]);
    expect(accepted.map((t) => t.name)).toEqual(['a', 'd']);
    expect(rejected).toEqual([
      { name: '', reason: 'it has no name' },
      { name: 'b', reason: '/inputSchema: input schema must be a JSON Schema object' },
      { name: 'a', reason: 'listed twice; the first definition is kept' },
      { name: 'c', reason: expect.stringMatching(/type "object"/) },
    ]);
  });

  it('refuses x-mcp-header names that cannot be HTTP headers, or that repeat', () => {
    const withHeaders = (properties: Record<string, unknown>) =>
      tool('h', { type: 'object', properties });
    const reason = (properties: Record<string, unknown>) =>
      checkDefinitions([withHeaders(properties)]).rejected[0]?.reason;
    expect(reason({ a: { type: 'string', 'x-mcp-header': 'X-Region' } })).toBeUndefined();
    expect(reason({ a: { type: 'string', 'x-mcp-header': 'bad header' } })).toMatch(
      /not a valid HTTP header name/,
    );
    expect(reason({ a: { type: 'object', 'x-mcp-header': 'X-A' } })).toMatch(
      /only string, integer and boolean/,
    );
    expect(
      reason({
        a: { type: 'string', 'x-mcp-header': 'X-A' },
        b: { type: 'string', 'x-mcp-header': 'x-a' },
      }),
    ).toMatch(/also used by "a"/);
  });
});
