// What an access token costs the gateway per request: its first check (an RS256 signature against
// the issuer's kept keys) and a later request with the same token (remembered by its hash).
// Run: pnpm --filter @toolwire/forwarder exec tsx bench/access-tokens.bench.ts
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createAccessTokenVerifier } from '../src/auth/access-token-verifier.js';

const TOKENS = 2_000;
const REPEATS = 20_000;

const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await exportJWK(publicKey)), kid: 'k', alg: 'RS256', use: 'sig' };
const server = createServer((_req, res) => res.end(JSON.stringify({ keys: [jwk] })));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const config = {
  issuer: 'https://login.example',
  jwksUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`,
  audience: 'https://gw.example/mcp',
  scopes: { all: ['*'] },
};
const verifier = createAccessTokenVerifier(config);
const now = Math.floor(Date.now() / 1000);
const tokens = await Promise.all(
  Array.from({ length: TOKENS }, (_, i) =>
    new SignJWT({ scope: 'all' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k' })
      .setIssuer(config.issuer)
      .setAudience(config.audience)
      .setSubject(`user-${i}`)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(privateKey),
  ),
);
await verifier.verify(tokens[0]!); // the keys are fetched once, here
let started = performance.now();
for (const token of tokens.slice(1)) await verifier.verify(token);
const first = (performance.now() - started) / (TOKENS - 1);
started = performance.now();
for (let i = 0; i < REPEATS; i++) await verifier.verify(tokens[i % TOKENS]!);
const remembered = (performance.now() - started) / REPEATS;
console.log(
  `first check of a token: ${(first * 1000).toFixed(1)} µs; the same token again: ${(remembered * 1000).toFixed(1)} µs (load ${loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')})`,
);
server.close();
