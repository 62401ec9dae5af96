import { ToolSearchIndex } from '@toolwire/schema';
import { describe, expect, it } from 'vitest';
import type { RegistryTool } from './registry-types.js';
import { searchTools } from './search-tools.js';

const tool = (
  source: string,
  originalName: string,
  description: string,
  parameters: string[] = [],
): RegistryTool => ({
  name: source === 'native' ? originalName : `${source}__${originalName}`,
  originalName,
  source,
  description,
  inputSchema: {
    type: 'object',
    properties: Object.fromEntries(parameters.map((p) => [p, { type: 'string' }])),
  },
  status: 'ok',
});

const tools = [
  tool('fs', 'read_text_file', 'Read the complete contents of a file as text.', ['path']),
  tool('fs', 'move_file', 'Move or rename files and directories.', ['source', 'destination']),
  tool('fs', 'list_directory', 'Get a detailed listing of all files and directories.', ['path']),
  tool('memory', 'create_entities', 'Create multiple new entities in the knowledge graph.', [
    'entities',
  ]),
  tool('memory', 'delete_entities', 'Delete multiple entities from the knowledge graph.', [
    'entityNames',
  ]),
  tool('native', 'hash', 'Compute a digest of some data.', ['data', 'algorithm']),
];

const names = (query: string) => searchTools(tools, query).map((hit) => hit.name);

describe('searchTools', () => {
  it("ranks as code mode's search() does (one index, ToolSearchIndex)", () => {
    for (const query of ['remove entities', 'folders', 'algorithm', 'read file', 'move a file']) {
      expect(names(query)).toEqual(
        new ToolSearchIndex(tools).search(query, { limit: 10 }).map((match) => match.tool.name),
      );
    }
  });

  it('finds tools by synonyms, word forms and parameter names (the old scorer ranked these wrong)', () => {
    // The old scorer matched "entities" in both names and broke the tie by name: create first.
    expect(names('remove entities')[0]).toBe('memory__delete_entities');
    // Neither "folders" nor "algorithm" was a word of any name or description.
    expect(names('folders')[0]).toBe('fs__list_directory');
    expect(names('algorithm')).toEqual(['hash']);
  });

  it('keeps its hit shape, limit and empty answer', () => {
    const [hit] = searchTools(tools, 'hash');
    expect(hit).toMatchObject({
      name: 'hash',
      source: 'native',
      originalName: 'hash',
      description: 'Compute a digest of some data.',
      status: 'ok',
    });
    expect(hit!.score).toBeGreaterThan(0);
    expect(searchTools(tools, 'file', { limit: 2 })).toHaveLength(2);
    expect(searchTools(tools, 'zzzz nothing')).toEqual([]);
  });
});
