import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from './logger.js';
import {
  memorySessionStore,
  SESSION_MAX_AGE_MS,
  STREAM_EVENT_LOG_LENGTH,
  type SessionStore,
} from '@toolwire/forwarder';

/**
 * State that several gateway instances must agree on beyond the forwarder's own. In memory for one
 * instance; in Redis when `redis` is configured: the legacy-session secret, revocations and
 * cancellations. (Rate limits, the result cache and circuit-breaker state are shared by the
 * forwarder itself: it picks its Redis stores from the same `redis` key.)
 */
export interface SharedState extends SessionStore {
  readonly kind: 'memory' | 'redis';
  /** The secret that signs legacy session ids (the same on every instance). */
  sessionSecret(): Promise<Buffer>;
  /** Tells the other instances that a 2025-era request of a session is cancelled. */
  publishCancel(sessionId: string, requestId: string | number): void;
  /** Called with cancellations published by other instances. */
  onCancel(listener: (sessionId: string, requestId: string | number) => void): void;
  /**
   * Keeps a value for `ttlMs` where every instance reads it (the conversations the OpenAI-compatible
   * endpoints keep for `previous_response_id`). In memory, the oldest go first past a cap.
   */
  putValue(key: string, value: string, ttlMs: number): Promise<void>;
  /** A value kept with `putValue`, unless it expired (or Redis does not answer). */
  getValue(key: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Values the memory state keeps at most (the oldest are dropped first). */
const MEMORY_VALUES = 2_000;

/** `putValue`/`getValue` in memory: insertion order is age order, so the first entry is the oldest. */
function memoryValues(): Pick<SharedState, 'putValue' | 'getValue'> {
  const values = new Map<string, { value: string; expires: number }>();
  return {
    putValue(key, value, ttlMs) {
      values.delete(key);
      values.set(key, { value, expires: Date.now() + ttlMs });
      for (const oldest of values.keys()) {
        if (values.size <= MEMORY_VALUES) break;
        values.delete(oldest);
      }
      return Promise.resolve();
    },
    getValue(key) {
      const entry = values.get(key);
      if (!entry) return Promise.resolve(undefined);
      if (entry.expires <= Date.now()) {
        values.delete(key);
        return Promise.resolve(undefined);
      }
      return Promise.resolve(entry.value);
    },
  };
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

export function createMemoryState(): SharedState {
  const secret = process.env.TOOLWIRE_SESSION_SECRET
    ? Buffer.from(process.env.TOOLWIRE_SESSION_SECRET)
    : randomBytes(32);
  const sessions = memorySessionStore();
  return {
    kind: 'memory',
    sessionSecret: () => Promise.resolve(secret),
    revokeSession: (id) => sessions.revokeSession(id),
    isRevoked: (id) => sessions.isRevoked(id),
    appendEvent: (event) => sessions.appendEvent!(event),
    eventsAfter: (id) => sessions.eventsAfter!(id),
    putRecord: (key, value, ttlMs) => sessions.putRecord!(key, value, ttlMs),
    getRecord: (key) => sessions.getRecord!(key),
    deleteRecord: (key) => sessions.deleteRecord!(key),
    claimOnce: (key, ttlMs) => sessions.claimOnce!(key, ttlMs),
    // One instance: the request is running here or not at all.
    publishCancel: () => {},
    onCancel: () => {},
    ...memoryValues(),
    close: () => Promise.resolve(),
  };
}

const PREFIX = 'toolwire:';
const REDIS_TIMEOUT_MS = 500;

function withTimeout<T>(promise: Promise<T>, ms = REDIS_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function createRedisState(url: string, logger: Logger): SharedState {
  const options = { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false };
  const redis = new Redis(url, options);
  const subscriber = new Redis(url, options);
  const instance = randomBytes(6).toString('hex');
  for (const client of [redis, subscriber]) {
    client.on('error', (error: Error) => logger.warn('redis error', { error: error.message }));
  }

  const cancelListeners = new Set<(sessionId: string, requestId: string | number) => void>();
  void subscriber
    .subscribe(`${PREFIX}cancel`)
    .catch((error: Error) => logger.warn('redis subscribe failed', { error: error.message }));
  subscriber.on('message', (channel: string, text: string) => {
    if (channel !== `${PREFIX}cancel`) return;
    try {
      const message = JSON.parse(text) as {
        from: string;
        session: string;
        request: string | number;
      };
      if (message.from === instance) return;
      for (const listener of cancelListeners) listener(message.session, message.request);
    } catch (error) {
      logger.warn('bad cancel message', { error: (error as Error).message });
    }
  });

  return {
    kind: 'redis',
    async sessionSecret() {
      if (process.env.TOOLWIRE_SESSION_SECRET)
        return Buffer.from(process.env.TOOLWIRE_SESSION_SECRET);
      let stored: string | null;
      try {
        await withTimeout(
          redis.set(`${PREFIX}session-secret`, randomBytes(32).toString('base64'), 'NX'),
          5000,
        );
        stored = await withTimeout(redis.get(`${PREFIX}session-secret`), 5000);
      } catch (error) {
        throw new Error(`redis: ${url} does not answer (${(error as Error).message})`, {
          cause: error,
        });
      }
      if (!stored) throw new Error('redis: could not read the shared session secret');
      return Buffer.from(stored, 'base64');
    },
    async revokeSession(id) {
      await redis.set(`${PREFIX}revoked:${digest(id)}`, '1', 'PX', SESSION_MAX_AGE_MS);
    },
    async isRevoked(id) {
      try {
        return (await withTimeout(redis.exists(`${PREFIX}revoked:${digest(id)}`))) === 1;
      } catch (error) {
        // Session ids are signed; revocation is the only thing Redis adds. Keep serving.
        logger.warn('redis unavailable: session revocation not checked', {
          error: (error as Error).message,
        });
        return false;
      }
    },
    // GET-stream events in one capped Redis stream: its entry ids are the SSE event ids, so a
    // stream resumes with Last-Event-ID on any instance.
    async appendEvent(event) {
      const id = await withTimeout(
        redis.xadd(
          `${PREFIX}stream-events`,
          'MAXLEN',
          '~',
          String(STREAM_EVENT_LOG_LENGTH),
          '*',
          'server',
          event.server ?? '',
          'data',
          event.data,
        ),
      );
      if (!id) throw new Error('redis: XADD returned no id');
      return id;
    },
    async eventsAfter(id) {
      try {
        const entries = await withTimeout(
          redis.xrange(`${PREFIX}stream-events`, `(${id}`, '+', 'COUNT', STREAM_EVENT_LOG_LENGTH),
        );
        return entries.map(([entryId, fields]) => {
          const field = (name: string): string => fields[fields.indexOf(name) + 1] ?? '';
          return { id: entryId, server: field('server') || null, data: field('data') };
        });
      } catch (error) {
        // Not a stream id of ours, or Redis away: the stream opens without a replay.
        logger.warn('stream events not replayed', { error: (error as Error).message });
        return [];
      }
    },
    // Tasks (who owns them, where they run), the upstream session each client works in, and
    // server-to-client requests answered once: every instance reads the same ones.
    async putRecord(key, value, ttlMs) {
      await withTimeout(
        redis.set(`${PREFIX}record:${key}`, value, 'PX', Math.max(1, Math.round(ttlMs))),
      );
    },
    async getRecord(key) {
      return (await withTimeout(redis.get(`${PREFIX}record:${key}`))) ?? undefined;
    },
    async deleteRecord(key) {
      await withTimeout(redis.del(`${PREFIX}record:${key}`));
    },
    async claimOnce(key, ttlMs) {
      const set = await withTimeout(
        redis.set(`${PREFIX}claim:${key}`, instance, 'PX', Math.max(1, Math.round(ttlMs)), 'NX'),
      );
      return set === 'OK';
    },
    publishCancel(sessionId, requestId) {
      const message = JSON.stringify({ from: instance, session: sessionId, request: requestId });
      redis
        .publish(`${PREFIX}cancel`, message)
        .catch((error: Error) =>
          logger.warn('redis cancel publish failed', { error: error.message }),
        );
    },
    onCancel(listener) {
      cancelListeners.add(listener);
    },
    async putValue(key, value, ttlMs) {
      await withTimeout(redis.set(`${PREFIX}value:${key}`, value, 'PX', ttlMs), 2000);
    },
    async getValue(key) {
      try {
        return (await withTimeout(redis.get(`${PREFIX}value:${key}`))) ?? undefined;
      } catch (error) {
        logger.warn('redis unavailable: a kept value was not read', {
          error: (error as Error).message,
        });
        return undefined;
      }
    },
    async close() {
      cancelListeners.clear();
      await Promise.allSettled([redis.quit(), subscriber.quit()]);
      redis.disconnect();
      subscriber.disconnect();
    },
  };
}
