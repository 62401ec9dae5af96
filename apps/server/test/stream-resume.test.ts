import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacySession, startGateway, startRedis, waitFor, type TestGateway } from './helpers.js';

const REDIS = spawnSync('redis-server', ['--version']).status === 0;

interface SseEvent {
  id?: string;
  data: string;
}

/** A 2025-11-25 GET stream, its events parsed as they arrive. */
async function openStream(url: string, sessionId: string, lastEventId?: string) {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
      ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}),
    },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const events: SseEvent[] = [];
  void (async () => {
    let pending = '';
    const decoder = new TextDecoder();
    for await (const chunk of response.body!) {
      pending += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = pending.indexOf('\n\n')) >= 0) {
        const block = pending.slice(0, end);
        pending = pending.slice(end + 2);
        const event: SseEvent = { data: '' };
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) event.id = line.slice(4);
          if (line.startsWith('data: ')) event.data += line.slice(6);
        }
        if (event.data) events.push(event);
      }
    }
  })().catch(() => {});
  return { events, close: () => controller.abort() };
}

/** Whether Redis stream id `a` (`<ms>-<sequence>`) comes after `b`. */
const laterId = (a: string, b: string): boolean => {
  const [ams, aseq] = a.split('-').map(Number) as [number, number];
  const [bms, bseq] = b.split('-').map(Number) as [number, number];
  return ams > bms || (ams === bms && aseq > bseq);
};
const methods = (events: SseEvent[]) => events.map((e) => JSON.parse(e.data).method as string);

describe.skipIf(!REDIS)(
  `a 2025-11-25 GET stream resumed on another instance${REDIS ? '' : ' (skipped: Debian package "redis-server" is not installed)'}`,
  () => {
    let redis: { url: string; process: ChildProcess };
    let a: TestGateway;
    let b: TestGateway;
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-resume-'));
    const fileA = join(dir, 'a.json');
    const fileB = join(dir, 'b.json');
    const write = (file: string, nativeTools: string[]) =>
      writeFileSync(file, JSON.stringify({ nativeTools, mcpServers: {}, redis: redis.url }));

    beforeAll(async () => {
      redis = await startRedis();
      write(fileA, ['calculate']);
      write(fileB, ['calculate']);
      a = await startGateway(undefined as never, { configPath: fileA, watchConfig: false });
      b = await startGateway(undefined as never, { configPath: fileB, watchConfig: false });
    }, 60_000);

    afterAll(async () => {
      await a?.close();
      await b?.close();
      redis?.process.kill('SIGTERM');
    });

    it('replays with Last-Event-ID, on any instance, the events published while the stream was away', async () => {
      const session = await legacySession(`${a.url}/mcp`);
      const id = session.sessionId!;
      const first = await openStream(`${a.url}/mcp`, id);
      write(fileA, ['calculate', 'hash']);
      await a.server.reload();
      const seen = await waitFor(
        () => first.events.find((e) => e.data.includes('tools/list_changed')),
        'list_changed on the first stream',
      );
      // A Redis stream id (<ms>-<sequence>), from the log every instance shares.
      expect(seen.id, 'the event carries an id from the shared log').toMatch(/^\d+-\d+$/);
      first.close();

      // While no stream is open, instance B's tool list changes.
      write(fileB, ['calculate', 'time']);
      await b.server.reload();

      const resumed = await openStream(`${b.url}/mcp`, id, seen.id);
      await waitFor(
        () => methods(resumed.events).includes('notifications/tools/list_changed') || undefined,
        'the missed list_changed replayed on instance B',
      );
      // Only what came after the given id: A's event is not replayed, and ids keep increasing.
      expect(resumed.events.every((e) => e.id !== seen.id)).toBe(true);
      resumed.close();

      // A stream opened without Last-Event-ID replays nothing.
      // Its events are the next change's alone: none logged before it opened is written to it.
      const lastBefore = resumed.events.at(-1)!.id!;
      const fresh = await openStream(`${b.url}/mcp`, id);
      write(fileB, ['calculate']);
      await b.server.reload();
      await waitFor(
        () => methods(fresh.events).includes('notifications/tools/list_changed') || undefined,
        'the next list_changed',
      );
      expect(fresh.events.every((e) => laterId(e.id!, lastBefore))).toBe(true);
      fresh.close();
    });
  },
);
