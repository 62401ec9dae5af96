import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_REDIS_SERVER, startRedisServer } from '../../test/helpers/redis-server.js';
import { createRedisUserTokenStore } from '../redis/redis-user-token-store.js';
import {
  createFileUserTokenStore,
  UserTokenSealer,
  type UserTokens,
  type UserTokenStore,
} from './user-token-store.js';

const tokens: UserTokens = {
  accessToken: 'eyJ.access.token',
  refreshToken: 'refresh-secret',
  expiresAt: 1_900_000_000_000,
  clientId: 'gw',
  tokenEndpoint: 'https://login.example/token',
};

describe('UserTokenSealer', () => {
  it('opens what it sealed, for the same key only', () => {
    const sealer = new UserTokenSealer('a key of enough length');
    const sealed = sealer.seal('alice@files', tokens);
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('refresh-secret');
    expect(sealer.open('alice@files', sealed)).toEqual(tokens);
    // Moved under another user's key, or opened with another secret, or tampered: nothing.
    expect(sealer.open('bob@files', sealed)).toBeUndefined();
    expect(
      new UserTokenSealer('another key of enough length').open('alice@files', sealed),
    ).toBeUndefined();
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    parts[3] = flipped.toString('base64url');
    expect(sealer.open('alice@files', parts.join('.'))).toBeUndefined();
    expect(sealer.open('alice@files', 'not sealed')).toBeUndefined();
  });
});

async function storeContract(store: UserTokenStore): Promise<void> {
  expect(await store.get('a')).toBeUndefined();
  await store.set('a', 'sealed-a');
  await store.set('b', 'sealed-b');
  expect(await store.get('a')).toBe('sealed-a');
  await store.delete('a');
  expect(await store.get('a')).toBeUndefined();
  expect(await store.get('b')).toBe('sealed-b');
}

describe('createFileUserTokenStore', () => {
  it('keeps sealed entries in a file only its owner reads', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'user-tokens-')), 'tokens.json');
    const store = createFileUserTokenStore(file);
    await storeContract(store);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ b: 'sealed-b' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe.skipIf(!HAS_REDIS_SERVER)(
  `createRedisUserTokenStore${HAS_REDIS_SERVER ? '' : ' (skipped: Debian package "redis-server" is not installed)'}`,
  () => {
    let redis: Awaited<ReturnType<typeof startRedisServer>>;
    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(() => redis?.stop());

    it('shares sealed entries between two instances', async () => {
      const one = createRedisUserTokenStore(redis.url);
      const two = createRedisUserTokenStore(redis.url);
      try {
        await storeContract(one);
        expect(await two.get('b')).toBe('sealed-b');
      } finally {
        await one.close();
        await two.close();
      }
    });
  },
);
