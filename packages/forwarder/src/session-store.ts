import { createHash } from 'node:crypto';
import { SESSION_MAX_AGE_MS } from './session-codec.js';

/**
 * What the instances serving the same sessions share. Session ids are signed claims
 * (`SessionCodec`), so a store holds only what a claim cannot: ids ended by DELETE, and
 * cancellations of requests that may run on another instance. In memory for one instance
 * (`memorySessionStore`); the gateway keeps it in Redis for a fleet.
 */
export interface SessionStore {
  /** Remembers an ended session (for `SESSION_MAX_AGE_MS`, after which its id expires anyway). */
  revokeSession(id: string): Promise<void>;
  isRevoked(id: string): Promise<boolean>;
  /** Tells the other instances that a request of a session is cancelled. */
  publishCancel?(sessionId: string, requestId: string | number): void;
  /** Called with the cancellations the other instances published. */
  onCancel?(listener: (sessionId: string, requestId: string | number) => void): void;
}

/** @deprecated Use `SessionStore` (the same two methods, plus cancellation). */
export type SessionRevocations = Pick<SessionStore, 'revokeSession' | 'isRevoked'>;

/** One process's store: ended ids kept (hashed) for their remaining lifetime. */
export function memorySessionStore(): SessionStore {
  const revoked = new Map<string, number>();
  const digest = (id: string): string => createHash('sha256').update(id).digest('base64url');
  return {
    revokeSession(id) {
      const now = Date.now();
      for (const [key, at] of revoked) if (now - at > SESSION_MAX_AGE_MS) revoked.delete(key);
      revoked.set(digest(id), now);
      return Promise.resolve();
    },
    // Nothing revoked (the usual case): no hash on each request.
    isRevoked: (id) => Promise.resolve(revoked.size > 0 && revoked.has(digest(id))),
  };
}
