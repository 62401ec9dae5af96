/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON answers */
import { startFixtureHttpServer, type FixtureHttpServer } from '@toolwire/testing/mcp';
import { afterEach, describe, expect, it } from 'vitest';
import { modernCall, startGateway, waitFor, type TestGateway } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function remoteState(gw: TestGateway): Promise<{ status: string; reason?: string }> {
  const readyz = (await (await fetch(`${gw.url}/readyz`)).json()) as any;
  return readyz.servers.find((s: any) => s.name === 'remote');
}

async function upMetric(gw: TestGateway): Promise<string | undefined> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  return /toolwire_forwarder_upstream_up\{upstream="remote"\} (\S+)/.exec(text)?.[1];
}

// The bound: /readyz says `down` (with why) within 5 s of an upstream dying, `ok` within
// 5 s of its return. These waits are that contract's deadlines, not timing measurements.
const WITHIN_5S = 5_000;

describe('upstream health in /readyz and upstream_up', () => {
  it('marks a dead streamable-HTTP upstream down at its first failed call, and ok once it is back', async () => {
    let remote: FixtureHttpServer = await startFixtureHttpServer({ tools: ['add'] });
    cleanups.push(() => remote.close());
    const gw = await startGateway({ mcpServers: { remote: { url: remote.url } } });
    cleanups.push(() => gw.close());
    expect((await remoteState(gw)).status).toBe('ok');
    expect(await upMetric(gw)).toBe('1');

    const port = remote.port;
    await remote.close();
    const call = await modernCall(`${gw.url}/mcp`, 'tools/call', {
      name: 'remote__add',
      arguments: { a: 1, b: 2 },
    });
    expect(call.body.error.message).toContain('remote');
    // The failed call itself decides: no probe needed.
    const down = await remoteState(gw);
    expect(down.status).toBe('down');
    expect(down.reason).toMatch(/ECONNREFUSED|unreachable/);
    expect(await upMetric(gw)).toBe('0');

    remote = await startFixtureHttpServer({ tools: ['add'], port });
    await waitFor(
      async () => ((await remoteState(gw)).status === 'ok' ? true : undefined),
      'readyz ok again after the upstream came back',
      WITHIN_5S,
    );
    expect(await upMetric(gw)).toBe('1');
  });

  it('notices an idle upstream die and come back without any call (probes)', async () => {
    let remote: FixtureHttpServer = await startFixtureHttpServer({ tools: ['add'] });
    cleanups.push(() => remote.close());
    const gw = await startGateway({ mcpServers: { remote: { url: remote.url } } });
    cleanups.push(() => gw.close());
    expect((await remoteState(gw)).status).toBe('ok');

    const port = remote.port;
    await remote.close();
    const down = await waitFor(
      async () => {
        const state = await remoteState(gw);
        return state.status === 'down' ? state : undefined;
      },
      'readyz down for the dead upstream',
      WITHIN_5S,
    );
    // Whoever noticed first says why: the probe, or the registry's broken notification stream.
    expect(down.reason).toMatch(/ECONNREFUSED|unreachable|disconnected|fetch failed/);
    expect(await upMetric(gw)).toBe('0');

    remote = await startFixtureHttpServer({ tools: ['add'], port });
    await waitFor(
      async () => ((await remoteState(gw)).status === 'ok' ? true : undefined),
      'readyz ok again',
      WITHIN_5S,
    );
    expect(await upMetric(gw)).toBe('1');
    const call = await modernCall(`${gw.url}/mcp`, 'tools/call', {
      name: 'remote__add',
      arguments: { a: 1, b: 2 },
    });
    expect(call.body.result.content[0].text).toBe('3');
  });
});
