import { afterEach, describe, expect, it, vi } from 'vitest';
import { SESSION_MAX_AGE_MS } from './session-codec.js';
import { memorySessionStore, STREAM_EVENT_LOG_LENGTH } from './session-store.js';
import { Sessions } from './sessions.js';

const alice = { token: 'alice-secret', client: 'alice' };
const bob = { token: 'bob-secret', client: 'bob' };

describe('Sessions', () => {
  const opened: Sessions[] = [];
  const create = (): Sessions => {
    const sessions = new Sessions();
    opened.push(sessions);
    return sessions;
  };
  afterEach(() => {
    vi.useRealTimers();
    for (const sessions of opened.splice(0)) sessions.close();
  });

  it('refuses a session already served here once it is ended, used by another token or expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const sessions = create();
    const id = sessions.open('2025-11-25', alice, undefined);
    const first = await sessions.resolve(id, alice, undefined);
    // The second request is served from what this instance already verified.
    expect(await sessions.resolve(id, alice, undefined)).toBe(first);
    await expect(sessions.resolve(id, bob, undefined)).rejects.toMatchObject({ status: 403 });
    await expect(sessions.resolve(id, alice, 'other')).rejects.toMatchObject({ status: 404 });

    const later = sessions.open('2025-11-25', alice, undefined);
    await sessions.resolve(later, alice, undefined);
    vi.setSystemTime(Date.now() + SESSION_MAX_AGE_MS + 1);
    await expect(sessions.resolve(later, alice, undefined)).rejects.toMatchObject({ status: 404 });
    vi.useRealTimers();

    const ended = sessions.open('2025-11-25', undefined, undefined);
    await sessions.end(await sessions.resolve(ended, undefined, undefined));
    await expect(sessions.resolve(ended, undefined, undefined)).rejects.toMatchObject({
      status: 404,
    });
  });

  it('serves a session opened by another instance holding the same secret', async () => {
    const secret = Buffer.alloc(32, 7);
    const a = new Sessions({ secret });
    const b = new Sessions({ secret });
    opened.push(a, b);
    const id = a.open('2025-11-25', alice, undefined);
    expect((await b.resolve(id, alice, undefined)).protocolVersion).toBe('2025-11-25');
    await expect(create().resolve(id, alice, undefined)).rejects.toMatchObject({ status: 404 });
  });
});

describe('memorySessionStore', () => {
  it('keeps the last events for resumption and answers only ids it issued', async () => {
    const store = memorySessionStore();
    const ids: string[] = [];
    for (let i = 0; i < STREAM_EVENT_LOG_LENGTH + 5; i++)
      ids.push(await store.appendEvent!({ server: null, data: String(i) }));
    const after = await store.eventsAfter!(ids[ids.length - 3]!);
    expect(after.map((event) => event.data)).toEqual([
      String(STREAM_EVENT_LOG_LENGTH + 3),
      String(STREAM_EVENT_LOG_LENGTH + 4),
    ]);
    // The oldest were dropped: resuming from before them replays what is kept.
    expect((await store.eventsAfter!(ids[0]!)).length).toBe(STREAM_EVENT_LOG_LENGTH);
    expect(await memorySessionStore().eventsAfter!(ids[0]!)).toEqual([]);
    expect(await store.eventsAfter!('not an id')).toEqual([]);
  });
});
