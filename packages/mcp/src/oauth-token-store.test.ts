import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileOAuthTokenStore } from './file-oauth-token-store.js';
import { MemoryOAuthTokenStore } from './oauth-token-store.js';

const tokens = { access_token: 'a1', token_type: 'Bearer', refresh_token: 'r1' };
const client = { client_id: 'c1', redirect_uris: ['http://127.0.0.1:1/cb'] };

describe('FileOAuthTokenStore', () => {
  it('keeps credentials per key in a file only its owner can read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-oauth-'));
    const path = join(dir, 'nested', 'oauth-tokens.json');
    const store = new FileOAuthTokenStore(path);
    expect(store.get('api https://x/mcp')).toBeUndefined();
    store.set('api https://x/mcp', { clientInformation: client });
    store.set('api https://x/mcp', { ...store.get('api https://x/mcp'), tokens });
    store.set('other https://y/mcp', { tokens: { ...tokens, access_token: 'a2' } });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(store.get('api https://x/mcp')).toEqual({ clientInformation: client, tokens });
    // A second store on the same file (the next run) sees the same credentials.
    const again = new FileOAuthTokenStore(path);
    expect(again.get('other https://y/mcp')?.tokens?.access_token).toBe('a2');
    expect(JSON.parse(readFileSync(path, 'utf8')).version).toBe(1);
  });

  it('deletes an entry set to nothing and tightens the mode of an existing file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-oauth-'));
    const path = join(dir, 'oauth-tokens.json');
    writeFileSync(path, JSON.stringify({ version: 1, servers: {} }), { mode: 0o644 });
    const store = new FileOAuthTokenStore(path);
    store.set('api u', { tokens });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    store.set('api u', {});
    expect(store.get('api u')).toBeUndefined();
    expect(JSON.parse(readFileSync(path, 'utf8')).servers).toEqual({});
  });

  it('reports a corrupt or foreign file and starts over instead of failing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-oauth-'));
    const path = join(dir, 'oauth-tokens.json');
    const problems: string[] = [];
    const store = new FileOAuthTokenStore(path, { onProblem: (message) => problems.push(message) });
    writeFileSync(path, '{ not json');
    expect(store.get('api u')).toBeUndefined();
    writeFileSync(path, JSON.stringify({ something: 'else' }));
    expect(store.get('api u')).toBeUndefined();
    expect(problems).toEqual([
      expect.stringContaining('is not valid JSON'),
      expect.stringContaining('is not a Toolwire token file'),
    ]);
    store.set('api u', { tokens });
    expect(store.get('api u')?.tokens).toEqual(tokens);
  });
});

describe('MemoryOAuthTokenStore', () => {
  it('keeps copies, so callers cannot change stored credentials by mutation', () => {
    const store = new MemoryOAuthTokenStore();
    const value = { tokens: { ...tokens } };
    store.set('k', value);
    value.tokens.access_token = 'changed';
    expect(store.get('k')?.tokens?.access_token).toBe('a1');
    store.set('k', {});
    expect(store.get('k')).toBeUndefined();
    expect(store.location).toBeUndefined();
  });
});
