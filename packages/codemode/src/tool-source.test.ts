import { defineTool, toolContent } from '@toolwire/schema';
import { runToolSourceContract } from '@toolwire/testing/tool-source';
import { describe, expect, it } from 'vitest';
import { toolSource } from './tool-source.js';

describe('toolSource', () => {
  it('answers a URI-only resource as a resource_link (valid MCP), not an empty embedded resource', async () => {
    const source = toolSource([
      defineTool({
        name: 'link',
        description: 'Points at a resource without its content.',
        inputSchema: { type: 'object' },
        execute: () => toolContent([{ type: 'resource', uri: 'mem://notes/1' }]),
      }),
    ]);
    const result = await source.callTool('link', {});
    expect(result.content).toEqual([
      { type: 'resource_link', uri: 'mem://notes/1', name: 'mem://notes/1' },
    ]);
  });
});

runToolSourceContract({
  name: '@toolwire/codemode toolSource',
  announcesChanges: false,
  setup: async () => ({
    source: toolSource([
      defineTool({
        name: 'echo',
        description: 'Echoes its text.',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        execute: (args: Record<string, unknown>) => `echo: ${String(args.text)}`,
      }),
    ]),
    call: { name: 'echo', args: { text: 'hi' }, text: 'echo: hi' },
  }),
});
