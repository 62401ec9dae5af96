import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { JwksCache } from './jwks-cache.js';

/** A JWKS endpoint whose key set can be changed; counts its fetches. */
async function jwksServer() {
  const { publicKey } = await generateKeyPair('RS256', { extractable: true });
  const keys = [{ ...(await exportJWK(publicKey)), kid: 'one', alg: 'RS256', use: 'sig' }];
  let fetches = 0;
  const server: Server = createServer((_req, res) => {
    fetches++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`,
    keys,
    fetches: () => fetches,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('JwksCache', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('fetches once, again for a new kid, and not again within the cool-down', async () => {
    const server = await jwksServer();
    cleanups.push(server.close);
    const cache = new JwksCache({ url: async () => server.url, unknownKeyCooldownMs: 60_000 });
    await cache.getKey({ alg: 'RS256', kid: 'one' });
    await cache.getKey({ alg: 'RS256', kid: 'one' });
    expect(server.fetches()).toBe(1);
    // A rotation: the new kid is fetched for.
    const { publicKey } = await generateKeyPair('RS256', { extractable: true });
    server.keys.push({ ...(await exportJWK(publicKey)), kid: 'two', alg: 'RS256', use: 'sig' });
    await cache.getKey({ alg: 'RS256', kid: 'two' });
    expect(server.fetches()).toBe(2);
    // Made-up kids within the cool-down: refused without a fetch.
    for (const kid of ['x', 'y', 'z'])
      await expect(cache.getKey({ alg: 'RS256', kid })).rejects.toThrow();
    expect(server.fetches()).toBe(2);
  });

  it('refuses an alg that does not fit a known key without fetching again', async () => {
    const server = await jwksServer();
    cleanups.push(server.close);
    const cache = new JwksCache({ url: async () => server.url, unknownKeyCooldownMs: 0 });
    await cache.getKey({ alg: 'RS256', kid: 'one' });
    await expect(cache.getKey({ alg: 'ES256', kid: 'one' })).rejects.toThrow();
    expect(server.fetches()).toBe(1);
  });

  it('does not ask a failing issuer again within the retry interval', async () => {
    let asked = 0;
    const cache = new JwksCache({
      url: async () => {
        asked++;
        return 'http://127.0.0.1:1/jwks';
      },
      retryAfterMs: 60_000,
    });
    await expect(cache.getKey({ alg: 'RS256', kid: 'one' })).rejects.toThrow(
      /could not be fetched/,
    );
    await expect(cache.getKey({ alg: 'RS256', kid: 'one' })).rejects.toThrow(
      /could not be fetched/,
    );
    expect(asked).toBe(1);
  });
});
