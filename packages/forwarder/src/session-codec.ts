import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a 2025-era session needs, carried inside its `Mcp-Session-Id`. */
export interface SessionClaims {
  /** Negotiated protocol revision. */
  protocolVersion: string;
  /** The passthrough route (`/servers/<name>/mcp`), or null for `/mcp`. */
  server: string | null;
  /** `SessionCodec.tokenFingerprint` of the bearer token the session was opened with ('' without auth). */
  token: string;
  /** Issued at, ms since the epoch. */
  issuedAt: number;
  /** Unique per session. */
  nonce: string;
  /** The client capabilities the gateway mirrors upstream (sampling, elicitation, roots), if any. */
  caps?: Record<string, unknown>;
}

/** Sessions older than this are refused (the client re-initializes). */
export const SESSION_MAX_AGE_MS = 24 * 60 * 60_000;

/**
 * Session ids that any instance holding the same secret can verify: `<claims>.<hmac>`, base64url.
 * No instance has to remember a session, so the session leg works behind any load balancer and
 * across config reloads.
 */
export class SessionCodec {
  constructor(private readonly secret: Buffer) {}

  static randomSecret(): Buffer {
    return randomBytes(32);
  }

  /**
   * Binds a session to its bearer token without revealing anything about the token: an HMAC under
   * the session secret (a plain hash would let anyone who sees the id test guesses offline).
   */
  tokenFingerprint(token: string | undefined): string {
    if (token === undefined) return '';
    return this.mac(`token\u0000${token}`).slice(0, 22);
  }

  mint(claims: Omit<SessionClaims, 'issuedAt' | 'nonce'>, now = Date.now()): string {
    const full: SessionClaims = {
      ...claims,
      issuedAt: now,
      nonce: randomBytes(9).toString('base64url'),
    };
    const body = Buffer.from(JSON.stringify(full)).toString('base64url');
    return `${body}.${this.mac(`session\u0000${body}`)}`;
  }

  /** The claims of a valid, unexpired id; undefined for anything else. */
  verify(id: string, now = Date.now()): SessionClaims | undefined {
    const dot = id.indexOf('.');
    if (dot <= 0 || id.length > 4096) return undefined;
    const body = id.slice(0, dot);
    const given = Buffer.from(id.slice(dot + 1));
    const expected = Buffer.from(this.mac(`session\u0000${body}`));
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

  /**
   * A signed, expiring token of `payload` for `purpose` (server-to-client request ids, 2026-07-28
   * `requestState`): any instance with the secret opens it; a token of another purpose, altered or
   * expired, opens to `undefined`.
   */
  seal(purpose: string, payload: Record<string, unknown>, ttlMs: number, now = Date.now()): string {
    const body = Buffer.from(JSON.stringify({ ...payload, exp: now + ttlMs })).toString(
      'base64url',
    );
    return `${body}.${this.mac(`${purpose}\u0000${body}`).slice(0, 32)}`;
  }

  /** The payload of a token `seal` made for `purpose`, if it is intact and unexpired. */
  open(purpose: string, token: unknown, now = Date.now()): Record<string, unknown> | undefined {
    if (typeof token !== 'string' || token.length > 8192) return undefined;
    const dot = token.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1));
    const expected = Buffer.from(this.mac(`${purpose}\u0000${body}`).slice(0, 32));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<
        string,
        unknown
      >;
      return typeof payload.exp === 'number' && payload.exp >= now ? payload : undefined;
    } catch {
      return undefined;
    }
  }

  private mac(text: string): string {
    return createHmac('sha256', this.secret).update(text).digest('base64url');
  }
}
