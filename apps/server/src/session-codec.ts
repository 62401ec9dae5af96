import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a legacy (2025-era) session needs, carried inside its `Mcp-Session-Id`. */
export interface SessionClaims {
  /** Negotiated protocol revision. */
  protocolVersion: string;
  /** The passthrough route (`/servers/<name>/mcp`), or null for `/mcp`. */
  server: string | null;
  /** Fingerprint of the bearer token the session was opened with ('' without auth). */
  token: string;
  /** Issued at, ms since the epoch. */
  issuedAt: number;
  /** Unique per session. */
  nonce: string;
}

/** Sessions older than this are refused (the client re-initializes). */
export const SESSION_MAX_AGE_MS = 24 * 60 * 60_000;

export function tokenFingerprint(token: string | undefined): string {
  return token === undefined
    ? ''
    : createHash('sha256').update(token).digest('base64url').slice(0, 16);
}

/**
 * Session ids that any instance holding the same secret can verify: `<claims>.<hmac>`, base64url.
 * No instance has to remember a session, so the legacy leg works behind any load balancer.
 */
export class SessionCodec {
  constructor(private readonly secret: Buffer) {}

  static randomSecret(): Buffer {
    return randomBytes(32);
  }

  mint(claims: Omit<SessionClaims, 'issuedAt' | 'nonce'>, now = Date.now()): string {
    const full: SessionClaims = {
      ...claims,
      issuedAt: now,
      nonce: randomBytes(9).toString('base64url'),
    };
    const body = Buffer.from(JSON.stringify(full)).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** The claims of a valid, unexpired id; undefined for anything else. */
  verify(id: string, now = Date.now()): SessionClaims | undefined {
    const dot = id.indexOf('.');
    if (dot <= 0 || id.length > 4096) return undefined;
    const body = id.slice(0, dot);
    const given = Buffer.from(id.slice(dot + 1));
    const expected = Buffer.from(this.sign(body));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let claims: SessionClaims;
    try {
      claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SessionClaims;
    } catch {
      return undefined;
    }
    if (typeof claims.issuedAt !== 'number' || now - claims.issuedAt > SESSION_MAX_AGE_MS)
      return undefined;
    return claims;
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url');
  }
}
