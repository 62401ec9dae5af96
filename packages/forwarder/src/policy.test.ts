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

  it('grants execute_code as the tool of that name and chat by the token alone', () => {
    const coder = { token: 'c', client: 'coder', allow: ['execute_code', 'fs__read_*'] };
    const chatter = { token: 'h', client: 'chatter', allow: ['chat'] };
    const grants = new ToolPolicy({
      policy: { allow: ['fs__*', 'execute_code'] },
      auth: { tokens: [coder, chatter, none, admin] },
    });
    expect(grants.checkGrant('execute_code', coder)).toBeNull();
    expect(grants.checkGrant('chat', coder)?.policy).toBe('auth.tokens.allow');
    expect(grants.checkGrant('chat', chatter)).toBeNull();
    // policy.allow names tools: it does not take chat away from everyone.
    expect(grants.checkGrant('chat', admin)).toBeNull();
    expect(grants.checkGrant('execute_code', chatter)?.policy).toBe('auth.tokens.allow');
    expect(grants.checkGrant('execute_code', none)).not.toBeNull();
    expect(grants.checkGrant('chat', none)).not.toBeNull();
    expect(grants.checkGrant('chat', undefined)).toBeNull();
    const blocked = new ToolPolicy({ policy: { block: ['chat'] } });
    expect(blocked.checkGrant('chat', undefined)?.policy).toBe('policy.block');
  });

  it('says whether a token could reach anything of an upstream, known or not yet listed', () => {
    const reach = (token: { token: string; client: string; allow?: string[] }, server: string) =>
      new ToolPolicy({ auth: { tokens: [token] } }).couldReach(server, '__', token);
    expect(reach({ token: 't', client: 'a', allow: ['fs__read_*'] }, 'fs')).toBe(true);
    expect(reach({ token: 't', client: 'a', allow: ['fs__read_*'] }, 'fsx')).toBe(false);
    expect(reach({ token: 't', client: 'a', allow: ['f*'] }, 'fs')).toBe(true);
    expect(reach({ token: 't', client: 'a', allow: ['*__echo'] }, 'vault')).toBe(true);
    expect(reach({ token: 't', client: 'a', allow: ['resources:mem*'] }, 'memory')).toBe(true);
    expect(reach({ token: 't', client: 'a', allow: ['resources:mem*'] }, 'vault')).toBe(false);
    // Grants and literal names of other things reach no upstream, even one named like them.
    expect(reach({ token: 't', client: 'a', allow: ['chat', 'calculate'] }, 'chat')).toBe(false);
    expect(reach({ token: 't', client: 'a', allow: [] }, 'fs')).toBe(false);
    expect(reach({ token: 't', client: 'a' }, 'fs')).toBe(true);
    expect(
      new ToolPolicy({ policy: { allow: ['fs__*'] } }).couldReach('vault', '__', undefined),
    ).toBe(false);
  });
});
