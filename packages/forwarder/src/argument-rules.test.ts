import { describe, expect, it } from 'vitest';
import { ArgumentRules } from './argument-rules.js';

describe('ArgumentRules', () => {
  const rules = new ArgumentRules([
    { tools: ['fs__*'], paths: ['path', 'paths.*', 'options.target'], roots: ['/srv/data'] },
  ]);

  it('accepts relative and absolute paths inside a root', () => {
    expect(rules.check('fs__read', { path: 'notes/a.txt' })).toBeUndefined();
    expect(rules.check('fs__read', { path: '/srv/data/x' })).toBeUndefined();
    expect(rules.check('fs__read', { path: 'a/../b' })).toBeUndefined();
  });

  it('refuses traversal and absolute paths outside the roots, naming the argument', () => {
    expect(rules.check('fs__read', { path: '../secret' })?.path).toBe('path');
    expect(rules.check('fs__read', { paths: ['ok', '/etc/shadow'] })?.path).toBe('paths[1]');
    expect(rules.check('fs__read', { options: { target: '/srv/database' } })?.message).toContain(
      'outside the allowed roots',
    );
    expect(rules.check('fs__read', { path: 'a\0b' })?.message).toContain('NUL');
  });

  it('leaves tools the rule does not name alone', () => {
    expect(rules.check('mem__read', { path: '/etc/shadow' })).toBeUndefined();
  });
});
