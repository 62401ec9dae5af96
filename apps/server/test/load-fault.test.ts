/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON-RPC answers */
import { execFileSync } from 'node:child_process';
import {
  fixtureStdioConfig,
  startFixtureHttpServer,
  type FixtureHttpServer,
} from '@toolwire/testing/mcp';
import { describe, expect, it } from 'vitest';
import { modernCall, startGateway, waitFor } from './helpers.js';

interface Outcome {
  tool: string;
  at: number;
  ok: boolean;
  error?: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Processes whose parent is this test process and that run the MCP fixture. */
function fixtureChildren(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], {
    encoding: 'utf8',
  }).trim();
  return out === ''
    ? []
    : out
        .split('\n')
        .filter((line) => line.includes('fixture-server'))
        .map((line) => Number(line.trim().split(/\s+/)[0]));
}

describe('startServer under load while upstreams fail', () => {
  it('keeps serving, fails only the broken upstreams clearly, recovers without a restart, leaks nothing', async () => {
    let remote: FixtureHttpServer = await startFixtureHttpServer({ tools: ['add'] });
    const remotePort = remote.port;
    const gw = await startGateway(
      {
        mcpServers: {
          good: fixtureStdioConfig({ tools: ['add'] }),
          flaky: fixtureStdioConfig({ tools: ['add'] }),
          remote: { url: remote.url },
        },
        policy: { timeoutMs: 5000 },
      },
      { backoff: { initialMs: 100, maxMs: 400 }, breaker: { failureThreshold: 3, openMs: 500 } },
    );
    const registry = () => gw.server.runtime.registry;
    const pidOf = (name: string) =>
      registry()
        .servers()
        .find((s) => s.name === name)!.pid!;
    const goodPid = pidOf('good');
    const flakyPid = pidOf('flaky');

    const outcomes: Outcome[] = [];
    const tools = ['good__add', 'flaky__add', 'remote__add', 'calculate'];
    let running = true;
    let counter = 0;
    const worker = async (w: number) => {
      for (let i = 0; running; i++) {
        const tool = tools[(w + i) % tools.length]!;
        const n = ++counter; // unique arguments: no cache hits
        const args = tool === 'calculate' ? { expression: `${n} + 1` } : { a: n, b: 1 };
        const answer = await modernCall(`${gw.url}/mcp`, 'tools/call', {
          name: tool,
          arguments: args,
        });
        const result = answer.body?.result;
        const ok = answer.status === 200 && result !== undefined && result.isError !== true;
        const error = ok
          ? undefined
          : JSON.stringify(answer.body?.error ?? result ?? answer.body ?? answer.status);
        outcomes.push({ tool, at: Date.now(), ok, ...(error ? { error } : {}) });
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    try {
      await waitFor(() => outcomes.length >= 80 || undefined, 'a first batch of calls');

      // Kill both: the stdio child with SIGKILL, the HTTP upstream by closing its server.
      const killedAt = Date.now();
      process.kill(flakyPid, 'SIGKILL');
      await remote.close();
      await waitFor(
        () =>
          (outcomes.some((o) => o.at > killedAt && o.tool === 'flaky__add' && !o.ok) &&
            outcomes.some((o) => o.at > killedAt && o.tool === 'remote__add' && !o.ok)) ||
          undefined,
        'errors from both broken upstreams',
      );
      expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
      const readyz = (await (await fetch(`${gw.url}/readyz`)).json()) as any;
      expect(readyz.servers.find((s: any) => s.name === 'good').status).toBe('ok');

      // The HTTP upstream comes back on the same port; the stdio one is restarted by the registry.
      remote = await startFixtureHttpServer({ tools: ['add'], port: remotePort });
      const restartedAt = Date.now();
      await waitFor(
        () =>
          (outcomes.some((o) => o.at > restartedAt && o.tool === 'flaky__add' && o.ok) &&
            outcomes.some((o) => o.at > restartedAt && o.tool === 'remote__add' && o.ok)) ||
          undefined,
        'calls to both upstreams to succeed again',
        20_000,
      );
      // Sustained load after recovery: every upstream keeps answering.
      const recovered = outcomes.length;
      await waitFor(() => outcomes.length >= recovered + 200 || undefined, 'load after recovery');
    } finally {
      running = false;
      await Promise.all(workers);
    }

    // Only the broken upstreams failed, each with an error that names it.
    for (const tool of ['good__add', 'calculate']) {
      const failed = outcomes.filter((o) => o.tool === tool && !o.ok);
      expect(failed, `${tool} failures: ${failed.map((f) => f.error).join('\n')}`).toEqual([]);
    }
    for (const [tool, upstream] of [
      ['flaky__add', 'flaky'],
      ['remote__add', 'remote'],
    ] as const) {
      const failed = outcomes.filter((o) => o.tool === tool && !o.ok);
      expect(failed.length).toBeGreaterThan(0);
      for (const failure of failed) expect(failure.error).toContain(upstream);
    }
    for (const tool of ['flaky__add', 'remote__add']) {
      const last = outcomes.filter((o) => o.tool === tool).slice(-20);
      expect(
        last.every((o) => o.ok),
        `${tool}: ${JSON.stringify(last.filter((o) => !o.ok))}`,
      ).toBe(true);
    }

    const newFlakyPid = pidOf('flaky');
    expect(newFlakyPid).not.toBe(flakyPid);
    expect(alive(flakyPid)).toBe(false);

    await gw.close();
    await remote.close();
    for (const pid of [goodPid, flakyPid, newFlakyPid])
      expect(alive(pid), `pid ${pid}`).toBe(false);
    expect(fixtureChildren()).toEqual([]);
  }, 90_000);
});
