import { describe, expect, it } from 'vitest';
import type { ToolSourceTool } from './tool-source.js';
import { searchTerms, ToolSearchIndex } from './tool-search.js';

const tool = (
  name: string,
  description: string,
  parameters: string[] = [],
  source?: string,
): ToolSourceTool => ({
  name,
  description,
  inputSchema: {
    type: 'object',
    properties: Object.fromEntries(parameters.map((p) => [p, { type: 'string' }])),
  },
  ...(source !== undefined ? { source } : {}),
});

const small = [
  tool('fs__read_text_file', 'Read the complete contents of a file as text.', ['path'], 'fs'),
  tool('fs__move_file', 'Move or rename files and directories.', ['source', 'destination'], 'fs'),
  tool(
    'fs__list_directory',
    'Get a detailed listing of all files and directories.',
    ['path'],
    'fs',
  ),
  tool(
    'memory__delete_entities',
    'Delete multiple entities from the knowledge graph.',
    ['entityNames'],
    'memory',
  ),
  tool(
    'memory__create_entities',
    'Create multiple new entities in the knowledge graph.',
    ['entities'],
    'memory',
  ),
  tool('hash', 'Compute a digest of some data.', ['data', 'algorithm']),
];
const names = (query: string, limit?: number) =>
  new ToolSearchIndex(small)
    .search(query, limit === undefined ? {} : { limit })
    .map((match) => match.tool.name);

describe('ToolSearchIndex', () => {
  it('ranks a tool whose name matches above one whose description only mentions the word', () => {
    expect(names('move a file')[0]).toBe('fs__move_file');
    expect(names('read file')[0]).toBe('fs__read_text_file');
  });

  it('folds word forms and synonyms a user says for the same thing', () => {
    expect(searchTerms('Removing Repositories')).toEqual(searchTerms('delete repo'));
    expect(names('remove entities')[0]).toBe('memory__delete_entities');
    expect(names('add an entity')[0]).toBe('memory__create_entities');
    expect(names('folders')[0]).toBe('fs__list_directory');
  });

  it('finds tools by their parameter names and splits camelCase', () => {
    expect(names('algorithm')).toEqual(['hash']);
    expect(names('entity names')[0]).toBe('memory__delete_entities');
  });

  it('uses the server a tool comes from', () => {
    const index = new ToolSearchIndex([
      tool('send_message', 'Send a message to a channel.', ['text'], 'slack'),
      tool('post_message', 'Send a message to a channel.', ['text'], 'teams'),
    ]);
    expect(index.search('message on teams').map((m) => m.tool.name)).toEqual([
      'post_message',
      'send_message',
    ]);
  });

  it('returns at most limit results, nothing for words no tool has, and refuses bad input', () => {
    expect(names('file', 2)).toHaveLength(2);
    expect(names('file').length).toBeLessThanOrEqual(5);
    expect(names('zebra quantum')).toEqual([]);
    expect(names('the of a')).toEqual([]);
    expect(() => names('file', 0)).toThrow(/limit must be a positive integer/);
    expect(() => new ToolSearchIndex(small).search(3 as unknown as string)).toThrow(
      /expected a query string/,
    );
  });

  it('ranks the same way every time (ties keep the listed order)', () => {
    const twins = [tool('a_copy', 'Copy a thing.'), tool('b_copy', 'Copy a thing.')];
    expect(new ToolSearchIndex(twins).search('copy').map((m) => m.tool.name)).toEqual([
      'a_copy',
      'b_copy',
    ]);
  });
});
