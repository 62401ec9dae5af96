import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { emptyPins, type PinsDocument, type PinStore } from '../pins/pin-store.js';

export interface RedisPinStoreOptions {
  /** Key and channel prefix (default `toolwire:`). */
  prefix?: string;
}

function parse(text: string | null): PinsDocument {
  if (!text) return emptyPins();
  const document = JSON.parse(text) as Partial<PinsDocument>;
  return { pins: { ...document.pins }, pending: { ...document.pending } };
}

/**
 * Pins shared by a fleet: one JSON document in Redis, changed with optimistic transactions (WATCH,
 * MULTI) so that two instances recording at once do not lose each other's pins, and announced on a
 * channel so that an approval anywhere is served everywhere at once.
 */
export function createRedisPinStore(url: string, options: RedisPinStoreOptions = {}): PinStore {
  const prefix = options.prefix ?? 'toolwire:';
  const key = `${prefix}pins`;
  const channel = `${prefix}pins:changed`;
  const me = randomUUID();
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    connectTimeout: 2000,
    // A Redis that stops answering fails the read instead of holding a listing or a call.
    commandTimeout: 2000,
  });
  let subscriber: Redis | undefined;
  const listeners = new Set<() => void>();
  redis.on('error', () => {});

  async function connected(): Promise<Redis> {
    if (redis.status === 'wait') await redis.connect();
    return redis;
  }

  return {
    async read() {
      return parse(await (await connected()).get(key));
    },
    async update(change) {
      const client = await connected();
      for (let attempt = 0; attempt < 10; attempt++) {
        await client.watch(key);
        const document = parse(await client.get(key));
        change(document);
        const done = await client.multi().set(key, JSON.stringify(document)).exec();
        if (done !== null) {
          await client.publish(channel, me);
          return document;
        }
      }
      throw new Error(`redis: the pins at ${key} kept changing under this update`);
    },
    onChange(listener) {
      listeners.add(listener);
      if (!subscriber) {
        subscriber = new Redis(url, { maxRetriesPerRequest: null, connectTimeout: 2000 });
        subscriber.on('error', () => {});
        subscriber.on('message', (_channel: string, from: string) => {
          if (from === me) return;
          for (const each of listeners) each();
        });
        void subscriber.subscribe(channel).catch(() => {});
      }
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      for (const client of [redis, subscriber]) {
        if (!client) continue;
        if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
        else client.disconnect();
      }
    },
  };
}
