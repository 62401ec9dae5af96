import { describe, expect, it } from 'vitest';
import { assignToolNames, fitName, type NamingEntry } from './naming.js';

const SAFE = /^[a-zA-Z0-9_-]{1,64}$/;

function entry(
  source: string,
  originalName: string,
  extra: Partial<NamingEntry> = {},
): NamingEntry {
  return {
    key: `${source}/${originalName}`,
    source,
    originalName,
    prefix: source === 'native' ? '' : source,
    priority: 0,
    order: 0,
    ...extra,
  };
}

describe('assignToolNames', () => {
  it('prefixes server tools with the server name and keeps native names', () => {
    const { names, warnings } = assignToolNames([
      entry('native', 'hash'),
      entry('fs', 'read_file', { order: 0 }),
      entry('memory', 'read_graph', { order: 1 }),
    ]);
    expect([...names.values()]).toEqual(['hash', 'fs__read_file', 'memory__read_graph']);
    expect(warnings).toEqual([]);
  });

  it('makes names provider-safe and shortens long ones with a stable hash suffix', () => {
    const long = 'x'.repeat(80);
    const { names, warnings } = assignToolNames([
      entry('my.server', 'do thing'),
      entry('srv', long),
    ]);
    expect(names.get('my.server/do thing')).toBe('my_server__do_thing');
    const shortened = names.get(`srv/${long}`)!;
    expect(shortened).toHaveLength(64);
    expect(shortened).toMatch(/^srv__x+_[0-9a-f]{8}$/);
    expect(assignToolNames([entry('srv', long)]).names.get(`srv/${long}`)).toBe(shortened);
    expect(warnings.some((w) => w.includes('is exposed as'))).toBe(true);
    for (const name of names.values()) expect(name).toMatch(SAFE);
  });

  it('never aborts on a collision: priority keeps the name, the other is renamed and a warning says so', () => {
    const entries = [
      entry('a', 'x__y', { prefix: 'a', order: 0 }),
      entry('a__x', 'y', { prefix: 'a__x', order: 1, priority: 5 }),
    ];
    const { names, warnings } = assignToolNames(entries);
    expect(names.get('a__x/y')).toBe('a__x__y');
    expect(names.get('a/x__y')).toMatch(/^a__x__y_[0-9a-f]{8}$/);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('server "a__x" keeps it');
  });

  it('gives native tools precedence in the flat strategy and prefixes the loser', () => {
    const { names, warnings } = assignToolNames(
      [
        entry('fs', 'hash', { order: 0 }),
        entry('native', 'hash'),
        entry('fs', 'read', { order: 0 }),
      ],
      { strategy: 'flat' },
    );
    expect(names.get('native/hash')).toBe('hash');
    expect(names.get('fs/hash')).toBe('fs__hash');
    expect(names.get('fs/read')).toBe('read');
    expect(warnings[0]).toContain('the native tools keeps it');
  });

  it('keeps existing names stable when a server is added later in the config', () => {
    const before = assignToolNames(
      [entry('a', 'search', { order: 0 }), entry('b', 'fetch', { order: 1 })],
      { strategy: 'flat' },
    ).names;
    const after = assignToolNames(
      [
        entry('a', 'search', { order: 0 }),
        entry('b', 'fetch', { order: 1 }),
        entry('c', 'search', { order: 2 }),
      ],
      { strategy: 'flat' },
    ).names;
    expect(after.get('a/search')).toBe(before.get('a/search'));
    expect(after.get('b/fetch')).toBe(before.get('b/fetch'));
    expect(after.get('c/search')).toBe('c__search');
  });

  it('applies aliases by exposed name or by server/tool', () => {
    const { names } = assignToolNames(
      [entry('fs', 'read_text_file'), entry('memory', 'read_graph')],
      {
        aliases: { fs__read_text_file: 'read_file', 'memory/read_graph': 'graph' },
      },
    );
    expect(names.get('fs/read_text_file')).toBe('read_file');
    expect(names.get('memory/read_graph')).toBe('graph');
  });

  it('honours a custom separator and maximum length', () => {
    const { names } = assignToolNames([entry('srv', 'tool_with_a_long_name')], {
      separator: '-',
      maxLength: 20,
    });
    const name = names.get('srv/tool_with_a_long_name')!;
    expect(name.length).toBeLessThanOrEqual(20);
    expect(name.startsWith('srv-tool')).toBe(true);
  });

  it('is deterministic whatever the input order', () => {
    const entries = [
      entry('a', 't', { order: 0 }),
      entry('b', 't', { order: 1 }),
      entry('c', 't', { order: 2 }),
    ];
    const one = assignToolNames(entries, { strategy: 'flat' }).names;
    const two = assignToolNames([...entries].reverse(), { strategy: 'flat' }).names;
    expect([...one.entries()].sort()).toEqual([...two.entries()].sort());
    expect(new Set(one.values()).size).toBe(3);
  });
});

describe('fitName', () => {
  it('replaces unsafe characters and never returns an empty name', () => {
    expect(fitName('a.b c/d', 64, 's')).toBe('a_b_c_d');
    expect(fitName('', 64, 's')).toBe('tool');
  });
});
