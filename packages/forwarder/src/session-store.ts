import { createHash, randomBytes } from 'node:crypto';
import { SESSION_MAX_AGE_MS } from './session-codec.js';

/** An event of the 2025-era GET streams, as kept for a stream resumed with `Last-Event-ID`. */
export interface StreamEvent {
  id: string;
  /** The passthrough route it concerns, or null for every route. */
  server: string | null;
  /** The JSON-RPC notification, serialized. */
  data: string;
}

/** How many GET-stream events a store keeps for resumption (the oldest are dropped). */
export const STREAM_EVENT_LOG_LENGTH = 1000;

/**
 * What the instances serving the same sessions share. Session ids are signed claims
 * (`SessionCodec`), so a store holds only what a claim cannot: ids ended by DELETE,
 * cancellations of requests that may run on another instance, and the recent events of the GET
 * streams, so that a stream cut on one instance resumes on any other. In memory for one instance
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
  /** Appends an event of the GET streams to the bounded log; resolves to its id. */
  appendEvent?(event: Omit<StreamEvent, 'id'>): Promise<string>;
  /** The kept events after the one with `id`, oldest first; none for an id it does not know. */
  eventsAfter?(id: string): Promise<StreamEvent[]>;
  /**
   * Small records every instance must see (task ids and who owns them, the upstream session a
   * client's calls use): kept for `ttlMs`. Without them, the forwarder keeps them in memory.
   */
  putRecord?(key: string, value: string, ttlMs: number): Promise<void>;
  getRecord?(key: string): Promise<string | undefined>;
  deleteRecord?(key: string): Promise<void>;
  /** True for the first caller only, for `ttlMs` (a response id answered once, on any instance). */
  claimOnce?(key: string, ttlMs: number): Promise<boolean>;
}

/** The record methods of a `SessionStore`, all present. */
export type RecordStore = Required<
  Pick<SessionStore, 'putRecord' | 'getRecord' | 'deleteRecord' | 'claimOnce'>
>;

/** Records in this process's memory, each dropped after its time. */
export function memoryRecordStore(): RecordStore {
  const records = new Map<string, { value: string; until: number }>();
  let sweepAt = 0;
  const sweep = (now: number): void => {
    if (now < sweepAt) return;
    sweepAt = now + 10_000;
    for (const [key, record] of records) if (record.until <= now) records.delete(key);
  };
  const live = (key: string, now: number) => {
    const record = records.get(key);
    if (record && record.until <= now) {
      records.delete(key);
      return undefined;
    }
    return record;
  };
  return {
    putRecord(key, value, ttlMs) {
      const now = Date.now();
      sweep(now);
      records.set(key, { value, until: now + ttlMs });
      return Promise.resolve();
    },
    getRecord: (key) => Promise.resolve(live(key, Date.now())?.value),
    deleteRecord(key) {
      records.delete(key);
      return Promise.resolve();
    },
    claimOnce(key, ttlMs) {
      const now = Date.now();
      sweep(now);
      if (live(key, now)) return Promise.resolve(false);
      records.set(key, { value: '1', until: now + ttlMs });
      return Promise.resolve(true);
    },
  };
}

/** `store`'s records when it keeps them, else records in this process's memory. */
export function recordStoreOf(store: SessionStore): RecordStore {
  if (store.putRecord && store.getRecord && store.deleteRecord && store.claimOnce) {
    return {
      putRecord: store.putRecord.bind(store),
      getRecord: store.getRecord.bind(store),
      deleteRecord: store.deleteRecord.bind(store),
      claimOnce: store.claimOnce.bind(store),
    };
  }
  return memoryRecordStore();
}

/** @deprecated Use `SessionStore` (the same two methods, plus cancellation). */
export type SessionRevocations = Pick<SessionStore, 'revokeSession' | 'isRevoked'>;

/** One process's store: ended ids kept (hashed) for their remaining lifetime, recent events. */
export function memorySessionStore(): SessionStore {
  const revoked = new Map<string, number>();
  const digest = (id: string): string => createHash('sha256').update(id).digest('base64url');
  // Ids name this process, so an id from another (or an earlier) process replays nothing.
  const prefix = randomBytes(6).toString('base64url');
  const events: StreamEvent[] = [];
  let sequence = 0;
  return {
    ...memoryRecordStore(),
    revokeSession(id) {
      const now = Date.now();
      for (const [key, at] of revoked) if (now - at > SESSION_MAX_AGE_MS) revoked.delete(key);
      revoked.set(digest(id), now);
      return Promise.resolve();
    },
    // Nothing revoked (the usual case): no hash on each request.
    isRevoked: (id) => Promise.resolve(revoked.size > 0 && revoked.has(digest(id))),
    appendEvent(event) {
      const id = `${prefix}-${++sequence}`;
      events.push({ id, ...event });
      if (events.length > STREAM_EVENT_LOG_LENGTH) events.shift();
      return Promise.resolve(id);
    },
    eventsAfter(id) {
      const dash = id.lastIndexOf('-');
      const after = Number(id.slice(dash + 1));
      if (id.slice(0, dash) !== prefix || !Number.isInteger(after)) return Promise.resolve([]);
      return Promise.resolve(events.filter((event) => Number(event.id.slice(dash + 1)) > after));
    },
  };
}
