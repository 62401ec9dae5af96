import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArgumentRules, filesystemDirectories } from './argument-rules.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'toolwire-rules-')));
const data = join(base, 'data');
const root = join(data, 'public');
mkdirSync(join(root, 'notes'), { recursive: true });
writeFileSync(join(data, 'secret.txt'), 'secret');
writeFileSync(join(root, 'notes', 'a.txt'), 'a');
// A symlink inside the root that points out of it, and one that stays inside.
symlinkSync(join(data, 'secret.txt'), join(root, 'escape.txt'));
symlinkSync(join(data), join(root, 'up'));
symlinkSync(join(root, 'notes'), join(root, 'inner'));

describe('ArgumentRules', () => {
  const rules = new ArgumentRules([{ tools: ['fs__*'], roots: [root] }]);

  it('accepts absolute paths inside a root, existing or not, through symlinks that stay inside', async () => {
    expect(await rules.check('fs__read', { path: join(root, 'notes', 'a.txt') })).toBeUndefined();
    expect(await rules.check('fs__write', { path: join(root, 'new', 'b.txt') })).toBeUndefined();
    expect(await rules.check('fs__read', { path: join(root, 'inner', 'a.txt') })).toBeUndefined();
    expect(await rules.check('fs__read', { path: root })).toBeUndefined();
  });

  it('covers every path argument of server-filesystem by default, move_file included', async () => {
    const move = await rules.check('fs__move_file', {
      source: join(root, 'notes', 'a.txt'),
      destination: join(data, 'stolen.txt'),
    });
    expect(move?.path).toBe('destination');
    const from = await rules.check('fs__move_file', {
      source: join(data, 'secret.txt'),
      destination: join(root, 'x.txt'),
    });
    expect(from?.path).toBe('source');
    const many = await rules.check('fs__read_multiple_files', {
      paths: [join(root, 'notes', 'a.txt'), join(data, 'secret.txt')],
    });
    expect(many?.path).toBe('paths[1]');
  });

  it('resolves symlinks (the realpath of the longest existing prefix) before the check', async () => {
    const link = await rules.check('fs__read', { path: join(root, 'escape.txt') });
    expect(link?.message).toMatch(/symlink/);
    const throughDir = await rules.check('fs__write', { path: join(root, 'up', 'new.txt') });
    expect(throughDir?.message).toMatch(/symlink/);
  });

  it('refuses "..", NUL, "~", URL-encoded forms and relative paths without a base', async () => {
    const refused = async (path: string) =>
      (await rules.check('fs__read', { path }))?.message ?? 'accepted';
    expect(await refused(`${root}/../secret.txt`)).toContain('".."');
    expect(await refused(`${root}/notes/../notes/a.txt`)).toContain('".."');
    expect(await refused(`${root}/a\0b`)).toContain('NUL');
    expect(await refused('~/.ssh/id_rsa')).toContain('~');
    expect(await refused(`${root}/%2e%2e/secret.txt`)).toContain('URL-encoded');
    expect(await refused(`file://${data}/secret.txt`)).toContain('URL');
    expect(await refused('notes/a.txt')).toContain('relative');
  });

  it('resolves relative paths against the upstream directories as server-filesystem does', async () => {
    const upstream = new ArgumentRules(
      [{ tools: ['fs__*'], roots: [root] }],
      filesystemDirectories({
        fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', data] },
      }),
    );
    // server-filesystem serves `data`: "secret.txt" is data/secret.txt, outside the public root.
    expect((await upstream.check('fs__read', { path: 'secret.txt' }, 'fs'))?.message).toContain(
      'outside the allowed roots',
    );
    expect(await upstream.check('fs__read', { path: 'public/notes/a.txt' }, 'fs')).toBeUndefined();
  });

  it('matches the namespaced name of an aliased tool, and leaves other tools alone', async () => {
    expect(
      (await rules.check(['read_file', 'fs__read_text_file'], { path: '/etc/passwd' }))?.path,
    ).toBe('path');
    expect(await rules.check('mem__read', { path: '/etc/shadow' })).toBeUndefined();
  });
});
