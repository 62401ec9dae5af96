/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON-RPC answers */
// Many tenants on one gateway, one of them hostile: it opens streams, sessions, calls and code runs
// as fast as it can. Each kind is held to the token's share (defaults, or its `limits` in the
// config file); one more is refused as a rate limit with retryAfterMs, and the polite token next to
// it is served as before.
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacySession, modernCall, startGateway, waitFor, type TestGateway } from './helpers.js';

const HOSTILE = 'tenant-hostile-0123456789';
const POLITE = 'tenant-polite-0123456789';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Opens a GET stream of a session; resolves once its headers are in (or with the refusal). */
async function openStream(
  url: string,
  token: string,
  sessionId: string,
): Promise<{ status: number; body?: any; close: () => void }> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
      ...bearer(token),
    },
    signal: controller.signal,
  });
  if (response.status !== 200)
    return { status: response.status, body: await response.json(), close: () => {} };
  return { status: 200, close: () => controller.abort() };
}

function expectRateLimited(answer: { status: number; body?: any }, what: string): void {
  expect(answer.status, what).toBe(429);
  expect(answer.body.error.message, what).toMatch(/rate limit/i);
  expect(answer.body.error.data.retryAfterMs, what).toBeGreaterThan(0);
}

describe('per-token limits of a gateway shared by tenants', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGateway({
      nativeTools: ['calculate'],
      mcpServers: { fx: fixtureStdioConfig({ tools: ['echo', 'slow'] }) },
      policy: { limits: { sessions: 40 } },
      auth: {
        tokens: [
          {
            token: HOSTILE,
            client: 'hostile',
            allow: ['*'],
            limits: { calls: { concurrent: 2, queued: 1 }, runs: { concurrent: 1, queued: 0 } },
          },
          { token: POLITE, client: 'polite', allow: ['*'] },
          {
            token: 'tenant-few-sessions-0123456789',
            client: 'few',
            allow: ['*'],
            limits: { sessions: 2, streams: 1 },
          },
        ],
      },
    });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('holds a token to its streams (default 32) while another opens its own', async () => {
    const url = `${gw.url}/mcp`;
    const session = await legacySession(url, bearer(HOSTILE));
    const open: Array<{ close: () => void }> = [];
    try {
      for (let i = 0; i < 32; i++) {
        const stream = await openStream(url, HOSTILE, session.sessionId!);
        expect(stream.status, `stream ${i + 1}`).toBe(200);
        open.push(stream);
      }
      expectRateLimited(await openStream(url, HOSTILE, session.sessionId!), 'the 33rd stream');
      // 2026-07-28 subscriptions count as streams too.
      const listen = await modernCall(
        url,
        'subscriptions/listen',
        { notifications: { toolsListChanged: true } },
        bearer(HOSTILE),
      );
      expectRateLimited(listen, 'a subscription past the limit');
      // The polite token is not held to the hostile one's count.
      const polite = await legacySession(url, bearer(POLITE));
      const mine = await openStream(url, POLITE, polite.sessionId!);
      expect(mine.status).toBe(200);
      mine.close();
      // A stream that closes frees its place.
      open.pop()!.close();
      await waitFor(async () => {
        const again = await openStream(url, HOSTILE, session.sessionId!);
        if (again.status !== 200) return undefined;
        open.push(again);
        return true;
      }, 'a freed stream place');
    } finally {
      for (const stream of open) stream.close();
    }
  });

  it('holds a token to its sessions (auth.tokens[].limits over policy.limits), until it ends one', async () => {
    const url = `${gw.url}/mcp`;
    const first = await legacySession(url, bearer('tenant-few-sessions-0123456789'));
    const second = await legacySession(url, bearer('tenant-few-sessions-0123456789'));
    expect(first.sessionId && second.sessionId).toBeTruthy();
    const third = await legacySession(url, bearer('tenant-few-sessions-0123456789'));
    expect(third.sessionId).toBeUndefined();
    expectRateLimited(third.init, 'a third session');
    expect(third.init.headers.get('retry-after')).toMatch(/^\d+$/);
    // Another token's sessions are its own (policy.limits.sessions: 40).
    expect((await legacySession(url, bearer(POLITE))).sessionId).toBeTruthy();
    // DELETE ends one: a new one may open.
    const ended = await fetch(url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': first.sessionId!, ...bearer('tenant-few-sessions-0123456789') },
    });
    expect(ended.status).toBe(200);
    expect(
      (await legacySession(url, bearer('tenant-few-sessions-0123456789'))).sessionId,
    ).toBeTruthy();
  });

  it('queues a token past its concurrent calls, refuses it past its queue, and serves another meanwhile', async () => {
    const url = `${gw.url}/mcp`;
    const slow = () =>
      modernCall(
        url,
        'tools/call',
        { name: 'fx__slow', arguments: { ms: 8_000, steps: 1 } },
        bearer(HOSTILE),
      );
    // Two run, one waits, the fourth is refused at once.
    const running = [slow(), slow(), slow()];
    await waitFor(
      () =>
        gw.server.runtime.forwarder.pipeline.callUsage().queued.hostile === 1 ? true : undefined,
      'two hostile calls running and one waiting',
    );
    const refused = await slow();
    expect(refused.body.error.code).toBe(-32029);
    expect(refused.body.error.message).toMatch(/rate limit/i);
    expect(refused.body.error.data.retryAfterMs).toBeGreaterThan(0);
    // The polite token's call does not wait behind the hostile ones.
    let politeDone = false;
    const polite = modernCall(
      url,
      'tools/call',
      { name: 'fx__echo', arguments: { text: 'hi' } },
      bearer(POLITE),
    ).then((answer) => {
      politeDone = true;
      return answer;
    });
    expect((await polite).body.result.content[0].text).toBe('echo: hi');
    expect(gw.server.runtime.forwarder.pipeline.callUsage().active.hostile).toBe(2);
    expect(politeDone).toBe(true);
    for (const answer of await Promise.all(running)) expect(answer.body.result).toBeDefined();
  });

  it("holds a token's code runs to its share of the sandbox (limits.runs), another token's runs go ahead", async () => {
    const post = (token: string, code: string) =>
      fetch(`${gw.url}/api/code`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: JSON.stringify({ code, typecheck: 'off' }),
      });
    // One busy run: the hostile token's whole share (runs.concurrent 1, queued 0).
    const busy = post(
      HOSTILE,
      'const end = Date.now() + 4000; while (Date.now() < end); return "done";',
    );
    await waitFor(async () => {
      const again = await post(HOSTILE, 'return 1');
      if (again.status !== 429) return undefined;
      const body = (await again.json()) as any;
      expect(body.error.message).toMatch(/rate limit/i);
      expect(body.error.data.retryAfterMs).toBeGreaterThan(0);
      expect(again.headers.get('retry-after')).toMatch(/^\d+$/);
      return true;
    }, 'the hostile token refused a second run');
    const polite = await post(POLITE, 'return 1 + 1');
    expect(((await polite.json()) as any).value).toBe(2);
    expect(((await (await busy).json()) as any).value).toBe('done');
  });
});
