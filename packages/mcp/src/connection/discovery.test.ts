import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { describeChanges, listAllTools, sameDefinitions } from './discovery.js';

const tool = (name: string, extra: Partial<McpTool> = {}): McpTool =>
  ({ name, inputSchema: { type: 'object' }, ...extra }) as McpTool;

describe('listAllTools', () => {
  it('follows cursors to the last page', async () => {
    const pages: Record<string, { tools: McpTool[]; nextCursor?: string }> = {
      '': { tools: [tool('a')], nextCursor: 'p2' },
      p2: { tools: [tool('b')], nextCursor: 'p3' },
      p3: { tools: [tool('c')] },
    };
    const asked: Array<string | undefined> = [];
    const all = await listAllTools(async ({ cursor }) => {
      asked.push(cursor);
      return pages[cursor ?? '']!;
    });
    expect(all.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(asked).toEqual([undefined, 'p2', 'p3']);
  });

  it('stops a server whose cursors go round in a loop', async () => {
    await expect(
      listAllTools(async ({ cursor }) => ({
        tools: [tool('a')],
        nextCursor: cursor === 'x' ? 'y' : 'x',
      })),
    ).rejects.toThrow(/pagination loops/);
  });
});

describe('sameDefinitions and describeChanges', () => {
  it('compares whole definitions whatever their key order', () => {
    const a = tool('a', { description: 'd', annotations: { readOnlyHint: true } });
    const reordered = { annotations: { readOnlyHint: true }, description: 'd', ...tool('a') };
    expect(sameDefinitions([a], [reordered as McpTool])).toBe(true);
    expect(sameDefinitions([a], [tool('a')])).toBe(false);
  });

  it('logs what a new listing added, removed and changed, and warns of changed annotations', () => {
    const warned: string[] = [];
    const told: string[] = [];
    const logger = { warn: (m: string) => warned.push(m), info: (m: string) => told.push(m) };
    describeChanges(
      'fs',
      [tool('read', { annotations: { readOnlyHint: true } }), tool('gone')],
      [tool('read', { annotations: { readOnlyHint: false } }), tool('new')],
      logger,
    );
    expect(told).toEqual([
      'MCP server "fs" tool list changed: added [new], removed [gone], changed [read]',
    ]);
    expect(warned[0]).toMatch(/annotations of tool "read" changed/);
  });
});
