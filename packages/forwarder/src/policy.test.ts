import { describe, expect, it } from 'vitest';
import { ToolPolicy } from './policy.js';

describe('ToolPolicy', () => {
  const limited = { token: 'l', client: 'limited', allow: ['fs__read_*', 'resources:mem*'] };
  const none = { token: 'n', client: 'none', allow: [] };
  const admin = { token: 'a', client: 'admin', allow: ['*'] };
  const policy = new ToolPolicy({
    policy: { block: ['fs__write_*', 'resources:vault'] },
    auth: { tokens: [limited, none, admin] },
  });

  it('matches an aliased tool by its namespaced name too, so a block covers the alias', () => {
    expect(policy.check('write', admin, 'fs__write_file')?.policy).toBe('policy.block');
    expect(policy.check('write', admin, 'fs__write_file')?.message).toContain('fs__write_file');
    expect(policy.check('read', limited, 'fs__read_text_file')).toBeNull();
    expect(policy.check('fs__list', limited)?.policy).toBe('auth.tokens.allow');
  });

  it('grants an upstream resources by resources:<server>, and "*" grants them all', () => {
    expect(policy.checkResources('memory', limited)).toBeNull();
    expect(policy.checkResources('fs', limited)?.message).toContain('resources:fs');
    expect(policy.checkResources('fs', admin)).toBeNull();
    expect(policy.checkResources('vault', admin)?.policy).toBe('policy.block');
  });

  it('grants nothing to a token whose allow is empty', () => {
    expect(policy.check('fs__read_file', none)?.policy).toBe('auth.tokens.allow');
    expect(policy.checkPrompt('fs__greet', none)?.message).toMatch(/^Prompt "fs__greet"/);
    expect(policy.checkResources('memory', none)).not.toBeNull();
    expect(policy.grantsEverything(none)).toBe(false);
    expect(policy.grantsEverything(admin)).toBe(true);
    expect(policy.grantsEverything(undefined)).toBe(true);
  });
});
