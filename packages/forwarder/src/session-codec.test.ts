import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { SESSION_MAX_AGE_MS, SessionCodec } from './session-codec.js';

describe('SessionCodec', () => {
  const claims = { protocolVersion: '2025-11-25', server: null, token: 'fingerprint' };

  it('mints ids that any codec with the same secret verifies', () => {
    const secret = SessionCodec.randomSecret();
    const id = new SessionCodec(secret).mint(claims);
    expect(new SessionCodec(Buffer.from(secret)).verify(id)).toMatchObject(claims);
    expect(new SessionCodec(SessionCodec.randomSecret()).verify(id)).toBeUndefined();
  });

  it('refuses tampered, malformed and expired ids', () => {
    const codec = new SessionCodec(SessionCodec.randomSecret());
    const id = codec.mint(claims, 1_000);
    const [body, mac] = id.split('.') as [string, string];
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), server: 'fs' }),
    ).toString('base64url');
    expect(codec.verify(`${forged}.${mac}`, 2_000)).toBeUndefined();
    expect(codec.verify('no-dot', 2_000)).toBeUndefined();
    expect(codec.verify(`${body}.`, 2_000)).toBeUndefined();
    expect(codec.verify(id, 2_000)).toBeDefined();
    expect(codec.verify(id, 1_000 + SESSION_MAX_AGE_MS + 1)).toBeUndefined();
  });

  it('gives each session its own id and never embeds the token', () => {
    const codec = new SessionCodec(SessionCodec.randomSecret());
    const one = codec.mint(claims);
    expect(codec.mint(claims)).not.toBe(one);
    expect(Buffer.from(one.split('.')[0]!, 'base64url').toString()).not.toContain('"t"');
  });

  it('binds a token by an HMAC under the secret, not a hash anyone can recompute', () => {
    const one = new SessionCodec(SessionCodec.randomSecret());
    const two = new SessionCodec(SessionCodec.randomSecret());
    const plain = createHash('sha256').update('t').digest('base64url');
    expect(one.tokenFingerprint('t')).not.toBe(two.tokenFingerprint('t'));
    expect(plain.startsWith(one.tokenFingerprint('t'))).toBe(false);
    expect(one.tokenFingerprint('t')).toBe(one.tokenFingerprint('t'));
    expect(one.tokenFingerprint('u')).not.toBe(one.tokenFingerprint('t'));
    expect(one.tokenFingerprint(undefined)).toBe('');
  });
});
