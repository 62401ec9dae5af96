/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON-RPC answers */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { startFixtureHttpServer, type FixtureHttpServer } from '@toolwire/testing/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  legacySession,
  modernCall,
  startGateway,
  startRedis,
  textOf,
  waitFor,
  type TestGateway,
} from './helpers.js';

const REDIS = spawnSync('redis-server', ['--version']).status === 0;

describe.skipIf(!REDIS)(
  `two gateway instances sharing one Redis${REDIS ? '' : ' (skipped: Debian package "redis-server" is not installed)'}`,
  () => {
    let redis: { url: string; process: ChildProcess };
    let upstream: FixtureHttpServer;
    let a: TestGateway;
    let b: TestGateway;

    beforeAll(async () => {
      redis = await startRedis();
      upstream = await startFixtureHttpServer({ tools: ['echo', 'add', 'slow'] });
      const config = {
        mcpServers: { fx: { url: upstream.url } },
        redis: redis.url,
        policy: { rateLimit: { perTool: { fx__echo: 3 } } },
        cache: { ttlSeconds: 60, tools: ['fx__add'] },
      };
      a = await startGateway(config);
      b = await startGateway(config);
    }, 60_000);

    afterAll(async () => {
      await a?.close();
      await b?.close();
      await upstream?.close();
      redis?.process.kill('SIGTERM');
    });

    const call = (gw: TestGateway, name: string, args: Record<string, unknown>) =>
      modernCall(`${gw.url}/mcp`, 'tools/call', { name, arguments: args });

    it('holds a rate limit across both instances', async () => {
      expect((await call(a, 'fx__echo', { text: '1' })).body.result).toBeDefined();
      expect((await call(b, 'fx__echo', { text: '2' })).body.result).toBeDefined();
      expect((await call(a, 'fx__echo', { text: '3' })).body.result).toBeDefined();
      const refusedOnB = await call(b, 'fx__echo', { text: '4' });
      expect(refusedOnB.body.error.message).toMatch(/rate limit/i);
      expect(refusedOnB.body.error.data.retryAfterMs).toBeGreaterThan(0);
      expect((await call(a, 'fx__echo', { text: '5' })).body.error.message).toMatch(/rate limit/i);
    });

    it('serves a result cached by one instance from the other', async () => {
      const calls = () =>
        upstream.events.filter((e) => e.type === 'call' && e.tool === 'add').length;
      const first = await call(a, 'fx__add', { a: 20, b: 22 });
      expect(first.body.result.structuredContent).toEqual({ sum: 42 });
      expect(calls()).toBe(1);
      const second = await call(b, 'fx__add', { b: 22, a: 20 });
      expect(second.body.result.structuredContent).toEqual({ sum: 42 });
      expect(calls()).toBe(1);
      await waitFor(
        () =>
          b.logs.find(
            (l) => l.event === 'tool_call' && l.tool === 'fx__add' && l.outcome === 'cached',
          ),
        'a cache hit on instance B',
      );
    });

    it('continues a 2025-era session on the other instance, and ends it everywhere', async () => {
      const session = await legacySession(`${a.url}/mcp`);
      const onB = await legacySession(`${b.url}/mcp`);
      // Same session id, sent to B.
      const answer = await onB.request(
        'tools/call',
        { name: 'fx__add', arguments: { a: 1, b: 1 } },
        session.sessionId,
      );
      expect(answer.status).toBe(200);
      expect(textOf(answer.body.result)).toBe('2');
      const ended = await fetch(`${b.url}/mcp`, {
        method: 'DELETE',
        headers: { 'mcp-session-id': session.sessionId! },
      });
      expect(ended.status).toBe(200);
      expect((await session.request('tools/list')).status).toBe(404);
    });

    it('cancels a request running on one instance from the other', async () => {
      const session = await legacySession(`${a.url}/mcp`);
      const running = session.request('tools/call', {
        name: 'fx__slow',
        arguments: { ms: 20_000 },
      });
      await waitFor(
        () => upstream.events.some((e) => e.type === 'call' && e.tool === 'slow') || undefined,
        'the slow call to reach the upstream',
      );
      const notice = await fetch(`${b.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'mcp-session-id': session.sessionId! },
        body: JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: session.lastId(), reason: 'user' },
        }),
      });
      expect(notice.status).toBe(202);
      const answer = await running;
      expect(answer.body.error.data).toMatchObject({ cancelled: true });
      await waitFor(
        () => upstream.events.some((e) => e.type === 'cancelled' && e.tool === 'slow') || undefined,
        'the upstream to see the cancellation',
      );
    });

    it('opens the circuit breaker of an upstream on both instances', async () => {
      await upstream.close();
      let last: any;
      for (let i = 0; i < 12; i++) {
        last = await call(a, 'fx__add', { a: i, b: 100 });
        if (/circuit breaker open/.test(last.body.error?.message ?? '')) break;
      }
      expect(last.body.error.message).toMatch(/circuit breaker open/);
      await waitFor(
        () => b.server.runtime.forwarder.pipeline.breaker('fx').state === 'open' || undefined,
        'the breaker to open on B',
      );
      const onB = await call(b, 'fx__add', { a: 1, b: 100 });
      expect(onB.body.error.message).toMatch(/circuit breaker open/);
      expect(onB.body.error.data.retryAfterMs).toBeGreaterThan(0);
    });

    it('keeps serving when Redis goes away (shared cache and revocation degrade, calls go on)', async () => {
      redis.process.kill('SIGKILL');
      await new Promise<void>((resolve) => redis.process.once('exit', () => resolve()));
      const session = await legacySession(`${a.url}/mcp`);
      const answer = await session.request('tools/call', {
        name: 'calculate',
        arguments: { expression: '2 * 21' },
      });
      expect(JSON.stringify(answer.body.result.content)).toContain('42');
      await waitFor(
        () => a.logs.find((l) => String(l.msg).startsWith('redis unavailable')),
        'a warning about Redis',
      );
    });

    it('refuses to start when the configured Redis does not answer, naming it', async () => {
      const port = await freePort();
      await expect(
        startGateway({ nativeTools: ['calculate'], redis: `redis://127.0.0.1:${port}` }),
      ).rejects.toThrow(new RegExp(`redis: redis://127.0.0.1:${port} does not answer`));
    });
  },
);
