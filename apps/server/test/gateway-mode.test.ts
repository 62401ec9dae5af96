/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON answers */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBinary, startGateway, waitFor, type Binary } from './helpers.js';

function auditLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.includes('"tool_call"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

// Gateway mode for MCP clients (seed 004) through the real binary and the official SDK client,
// in both protocol revisions: `legacy` speaks 2025-11-25 sessions, `auto` 2026-07-28.
describe('toolwire-server in gateway mode', () => {
  let bin: Binary;
  const clients: Client[] = [];

  async function connect(mode: 'legacy' | 'auto'): Promise<Client> {
    const client = new Client({ name: `gw-${mode}`, version: '1.0.0' }, {
      versionNegotiation: { mode },
    } as never);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${bin.url}/mcp`)));
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    bin = await startBinary({
      nativeTools: ['calculate'],
      mcpServers: {
        fx: fixtureStdioConfig({ tools: ['echo', 'add', 'fail'] }),
        direct: { ...fixtureStdioConfig({ tools: ['echo'] }), gateway: false },
      },
      gateway: { mode: 'gateway' },
      policy: { block: ['fx__fail'], rateLimit: { perTool: { fx__echo: 2 } } },
      cache: { tools: ['fx__add'] },
    });
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await bin?.stop();
  });

  it('connects a gatewayed server only on first use', async () => {
    const ready = (await (await fetch(`${bin.url}/readyz`)).json()) as any;
    expect(ready.status).toBe('ready');
    const fx = ready.servers.find((s: any) => s.name === 'fx');
    expect(fx.status).toBe('idle');
    expect(ready.servers.find((s: any) => s.name === 'direct').status).toBe('ok');
  });

  for (const mode of ['legacy', 'auto'] as const) {
    it(`lists native, direct and one gateway tool per server; list/describe/execute work (${mode})`, async () => {
      const client = await connect(mode);
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['calculate', 'direct__echo', 'fx']));
      expect(names.filter((n) => n.startsWith('fx__'))).toEqual([]);
      const fx = tools.find((t) => t.name === 'fx')!;
      expect(fx._meta).toMatchObject({ 'toolwire/source': 'forwarded', 'toolwire/server': 'fx' });

      const listed = await client.callTool({ name: 'fx', arguments: {} });
      const listing = listed.structuredContent as any;
      expect(listing.server).toBe('fx');
      // Policy hides fx__fail here as it does in direct mode.
      expect(listing.tools.map((t: any) => t.name).sort()).toEqual(['add', 'echo']);
      expect(listing.tools.find((t: any) => t.name === 'add').inputSchema.required).toEqual([
        'a',
        'b',
      ]);

      const described = await client.callTool({
        name: 'fx',
        arguments: { action: 'describe', tool: 'add' },
      });
      expect((described.structuredContent as any).annotations).toMatchObject({
        readOnlyHint: true,
      });

      // Seed 004's field names work beside ours.
      const sum = await client.callTool({
        name: 'fx',
        arguments: { action: 'execute', tool_name: 'add', tool_inputs: { a: 40, b: 2 } },
      });
      expect(sum.structuredContent).toEqual({ sum: 42 });
    });
  }

  it('tells the model what to send on a wrong call', async () => {
    const client = await connect('auto');
    const noTool = await client.callTool({ name: 'fx', arguments: { action: 'execute' } });
    expect(noTool.isError).toBe(true);
    expect(JSON.stringify(noTool.content)).toMatch(/needs \\"tool\\".*add/);
    const badAction = await client.callTool({ name: 'fx', arguments: { action: 'run' } });
    expect(JSON.stringify(badAction.content)).toMatch(/action must be/);
    const stray = await client.callTool({ name: 'fx', arguments: { a: 1 } });
    expect(JSON.stringify(stray.content)).toMatch(/go inside \\"arguments\\"/);
    const unknown = await client.callTool({
      name: 'fx',
      arguments: { action: 'execute', tool: 'nope' },
    });
    expect(JSON.stringify(unknown.content)).toMatch(/use action \\"list\\"/);
    const badArgs = await client.callTool({
      name: 'fx',
      arguments: { action: 'execute', tool: 'add', arguments: { a: 'x' } },
    });
    expect(badArgs.isError).toBe(true);
    expect(JSON.stringify(badArgs.content)).toMatch(
      /Invalid arguments for tool \\"fx__add\\".*\/a: must be number/,
    );
  });

  it('applies policy, rate limits, cache and audit to executed tools under their real names', async () => {
    const client = await connect('legacy');
    await expect(
      client.callTool({ name: 'fx', arguments: { action: 'execute', tool: 'fail' } }),
    ).resolves.toMatchObject({ isError: true });
    // The blocked tool is not even found: it is not among the tools this client may use.
    for (let i = 0; i < 2; i++) {
      await client.callTool({
        name: 'fx',
        arguments: { action: 'execute', tool: 'echo', arguments: { text: `hi ${i}` } },
      });
    }
    await expect(
      client.callTool({
        name: 'fx',
        arguments: { action: 'execute', tool: 'echo', arguments: { text: 'too many' } },
      }),
    ).rejects.toThrow(/rate limit/);
    await client.callTool({
      name: 'fx',
      arguments: { action: 'execute', tool: 'add', arguments: { a: 1, b: 1 } },
    });
    await client.callTool({
      name: 'fx',
      arguments: { action: 'execute', tool: 'add', arguments: { a: 1, b: 1 } },
    });
    // This test's lines: from its refused call on (the binary is shared, and an earlier test
    // logged cached calls of fx__add too). The log is written in batches: wait for the last one.
    const audit = await waitFor(() => {
      const lines = auditLines(bin.stdout());
      const refused = lines.findIndex(
        (l) =>
          l.tool === 'fx__echo' && l.outcome === 'refused' && /rate limit/.test(String(l.error)),
      );
      const mine = refused < 0 ? [] : lines.slice(refused);
      return mine.some((l) => l.tool === 'fx__add' && l.outcome === 'cached') ? lines : undefined;
    }, 'the audit lines of a refused call, then of a cached call');
    expect(audit.some((l) => l.tool === 'fx')).toBe(false);
  });

  it('neither lists nor runs through execute a tool the token is not granted', async () => {
    const blocked = await startBinary({
      mcpServers: { fx: { ...fixtureStdioConfig({ tools: ['echo', 'add'] }), gateway: true } },
      auth: {
        tokens: [
          { token: 'all-token', client: 'all', allow: ['*'] },
          { token: 'echo-token', client: 'echo-only', allow: ['fx__echo'] },
        ],
      },
    });
    try {
      const client = new Client({ name: 'scoped', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${blocked.url}/mcp`), {
          requestInit: { headers: { authorization: 'Bearer echo-token' } },
        }),
      );
      clients.push(client);
      const listing = (await client.callTool({ name: 'fx', arguments: { action: 'list' } }))
        .structuredContent as any;
      expect(listing.tools.map((t: any) => t.name)).toEqual(['echo']);
      const refused = await client.callTool({
        name: 'fx',
        arguments: { action: 'execute', tool: 'add', arguments: { a: 1, b: 2 } },
      });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toMatch(/has no tool \\"add\\"/);
    } finally {
      await blocked.stop();
    }
  });
});

describe('toolwire-server tools/list _meta', () => {
  it('marks native and forwarded tools with their server and original name (2026-07-28)', async () => {
    const bin = await startBinary({
      nativeTools: ['hash'],
      mcpServers: { fx: fixtureStdioConfig({ tools: ['echo'] }) },
      namespace: { aliases: { fx__echo: 'say' } },
    });
    const client = new Client({ name: 'meta', version: '1' }, {
      versionNegotiation: { mode: 'auto' },
    } as never);
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${bin.url}/mcp`)));
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'hash')!._meta).toEqual({
        'toolwire/source': 'native',
        'toolwire/server': 'native',
        'toolwire/originalName': 'hash',
      });
      expect(tools.find((t) => t.name === 'say')!._meta).toEqual({
        'toolwire/source': 'forwarded',
        'toolwire/server': 'fx',
        'toolwire/originalName': 'echo',
      });
    } finally {
      await client.close().catch(() => {});
      await bin.stop();
    }
  });
});

describe('toolwire-server upstream status for clients', () => {
  it('shows the negotiated revision in /readyz and marks tools of a down upstream in _meta', async () => {
    const gw = await startGateway(
      { mcpServers: { fx: fixtureStdioConfig({ tools: ['echo', 'crash'] }) } },
      { backoff: { initialMs: 60_000, maxMs: 60_000 } },
    );
    const client = new Client({ name: 'status', version: '1' });
    try {
      const ready = (await (await fetch(`${gw.url}/readyz`)).json()) as any;
      expect(ready.servers[0]).toMatchObject({ name: 'fx', protocolVersion: expect.any(String) });
      expect(ready.servers[0].protocolKnown).toBe(true);
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
      const before = await client.listTools();
      expect(before.tools.find((t) => t.name === 'fx__echo')!._meta).not.toHaveProperty(
        'toolwire/status',
      );
      await client.callTool({ name: 'fx__crash', arguments: {} }).catch(() => undefined);
      await waitFor(
        () => gw.server.runtime.registry.servers()[0]!.status !== 'ok' || undefined,
        'the upstream to go down',
      );
      const after = await client.listTools();
      expect(after.tools.find((t) => t.name === 'fx__echo')!._meta).toMatchObject({
        'toolwire/server': 'fx',
        'toolwire/status': expect.stringMatching(/^(stale|unavailable)$/),
      });
    } finally {
      await client.close().catch(() => {});
      await gw.close();
    }
  });
});

describe('toolwire-server audit lines', () => {
  it('names the client address, and a call running past a second gets an "initiated" line first', async () => {
    const gw = await startGateway({
      mcpServers: { fx: fixtureStdioConfig({ tools: ['echo', 'slow'] }) },
    });
    const client = new Client({ name: 'audit', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
      await client.callTool({ name: 'fx__echo', arguments: { text: 'quick' } });
      await client.callTool({ name: 'fx__slow', arguments: { ms: 1500 } });
      const calls = await waitFor(() => {
        const lines = gw.logs.filter((l) => l.event === 'tool_call');
        return lines.some((l) => l.tool === 'fx__slow' && l.outcome === 'ok') ? lines : undefined;
      }, 'the slow call to finish');
      const slow = calls.filter((l) => l.tool === 'fx__slow').map((l) => l.outcome);
      expect(slow).toEqual(['initiated', 'ok']);
      // (A quick call may still cross the second on a loaded machine: only its outcome is checked.)
      expect(calls.filter((l) => l.tool === 'fx__echo').at(-1)?.outcome).toBe('ok');
      for (const line of calls) expect(line.address).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    } finally {
      await client.close().catch(() => {});
      await gw.close();
    }
  });
});

describe('toolwire-server /metrics', () => {
  it('counts open connections and 2025-era sessions', async () => {
    const gw = await startGateway({ mcpServers: {} });
    const client = new Client({ name: 'metrics', version: '1' }, {
      versionNegotiation: { mode: 'legacy' },
    } as never);
    const gauge = async (name: string): Promise<number> => {
      const text = await (await fetch(`${gw.url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${name} `));
      return Number(line?.split(' ')[1]);
    };
    try {
      expect(await gauge('toolwire_server_sessions')).toBe(0);
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
      await client.listTools();
      expect(await gauge('toolwire_server_sessions')).toBe(1);
      // The scrape's own connection at least, plus the client's.
      expect(await gauge('toolwire_server_active_connections')).toBeGreaterThanOrEqual(2);
    } finally {
      await client.close().catch(() => {});
      await gw.close();
    }
  });
});
