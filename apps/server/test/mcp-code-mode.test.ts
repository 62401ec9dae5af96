/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON answers */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBinary, waitFor, type Binary } from './helpers.js';

function auditLines(stdout: string): Array<Record<string, any>> {
  return stdout
    .split('\n')
    .filter((line) => line.includes('"tool_call"'))
    .map((line) => JSON.parse(line) as Record<string, any>);
}

// `execute_code` on /mcp (codeMode.enabled) through the real binary and the official SDK client in
// both revisions: the script's tool calls run as the MCP client that called execute_code.
describe('toolwire-server /mcp with code mode on', () => {
  let bin: Binary;
  const clients: Client[] = [];

  async function connect(mode: 'legacy' | 'auto', token: string): Promise<Client> {
    const client = new Client({ name: `code-${mode}`, version: '1.0.0' }, {
      versionNegotiation: { mode },
    } as never);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${bin.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    bin = await startBinary({
      nativeTools: ['calculate', 'hash'],
      mcpServers: { fx: fixtureStdioConfig({ tools: ['echo', 'add'] }) },
      codeMode: { enabled: true, excludedTools: ['hash'] },
      auth: {
        tokens: [
          { token: 'admin-token', client: 'admin', allow: ['*'] },
          { token: 'limited-token', client: 'limited', allow: ['execute_code', 'calculate'] },
        ],
      },
      policy: { rateLimit: { perTool: { calculate: 3 } } },
    });
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await bin?.stop();
  });

  for (const mode of ['legacy', 'auto'] as const) {
    it(`refuses a script's call to a tool outside the caller's allow-list, audited as that client (${mode})`, async () => {
      const client = await connect(mode, 'limited-token');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['execute_code']);
      const executeCode = tools[0]!;
      // The description declares only what this token may call.
      expect(executeCode.description).toContain('calculate');
      expect(executeCode.description).not.toContain('fx__echo');
      expect(executeCode.outputSchema).toMatchObject({
        required: ['ok', 'output', 'returned', 'logs', 'toolCalls'],
      });

      const before = auditLines(bin.stdout()).length;
      // By its declared name, through the sandbox's function table, and through search().
      const attack = await client.callTool({
        name: 'execute_code',
        arguments: {
          code: [
            'const found = await search("echo text back");',
            'const viaTable = (globalThis as any).tools?.fx__echo;',
            'const direct = await (globalThis as any).fx__echo?.({ text: "x" });',
            'const table = viaTable ? await viaTable({ text: "x" }) : undefined;',
            'return { found: found.map((f) => f.name), direct: direct ?? null, table: table ?? null };',
          ].join('\n'),
        },
      });
      expect(attack.isError, JSON.stringify(attack.content)).not.toBe(true);
      expect((attack.structuredContent as any).returned).toEqual({
        found: [],
        direct: null,
        table: null,
      });
      expect(attack.structuredContent).toMatchObject({ ok: true, toolCalls: [] });

      // A call it may make, then one it may not: the first runs as this client, the second never runs.
      const refused = await client.callTool({
        name: 'execute_code',
        arguments: {
          code: 'await calculate({ expression: "1 + 1" });\nreturn await fx__echo({ text: "x" });',
        },
      });
      expect(refused.isError).toBe(true);
      expect((refused.structuredContent as any).ok).toBe(false);

      // A run past 1 s also gets an "initiated" line before its outcome.
      const finished = () =>
        auditLines(bin.stdout())
          .slice(before)
          .filter((l) => l.outcome !== 'initiated');
      await waitFor(
        () => finished().filter((l) => l.tool === 'execute_code').length >= 2 || undefined,
        'the audit lines of both runs',
      );
      const lines = finished();
      // No call of fx__echo reached the upstream; both runs are the limited client's.
      expect(lines.filter((l) => l.tool === 'fx__echo' && l.outcome !== 'refused')).toEqual([]);
      const runs = lines.filter((l) => l.tool === 'execute_code');
      expect(runs.map((l) => l.client)).toEqual(['limited', 'limited']);
      const inner = lines.filter((l) => l.tool === 'calculate');
      // (ok, or refused by the rate limit the other tests of this client spend.)
      expect(inner.map((l) => l.client)).toEqual(['limited']);
    });

    it(`runs a script's calls as the caller: its rate limits, its audit lines, structuredContent (${mode})`, async () => {
      const client = await connect(mode, 'limited-token');
      const before = auditLines(bin.stdout()).length;
      const result = await client.callTool({
        name: 'execute_code',
        arguments: {
          code: [
            'const out: unknown[] = [];',
            'for (let i = 0; i < 4; i++) {',
            '  try { out.push(await calculate({ expression: `${i} + 1` })); }',
            '  catch (error) { out.push(String((error as Error).message)); }',
            '}',
            'return out;',
          ].join('\n'),
        },
      });
      const structured = result.structuredContent as any;
      expect(structured.ok).toBe(true);
      const returned = structured.returned as unknown[];
      // policy.rateLimit.perTool.calculate = 3 per minute for this client, the two runs of the
      // other revision included: the script's calls count against it like direct calls.
      const limited = returned.filter((r) => typeof r === 'string' && /rate limit/i.test(r));
      expect(limited.length).toBeGreaterThan(0);
      // The script (and the model) read a refusal as one: category rateLimited, not unknown.
      expect(structured.toolCalls.map((c: any) => c.error?.category)).toContain('rateLimited');
      expect(structured.toolCalls.map((c: any) => c.name)).toEqual([
        'calculate',
        'calculate',
        'calculate',
        'calculate',
      ]);
      await waitFor(
        () =>
          auditLines(bin.stdout())
            .slice(before)
            .some((l) => l.tool === 'execute_code') || undefined,
        'the audit line of execute_code',
      );
      const lines = auditLines(bin.stdout()).slice(before);
      const calc = lines.filter((l) => l.tool === 'calculate');
      expect(calc).toHaveLength(4);
      expect(new Set(calc.map((l) => l.client))).toEqual(new Set(['limited']));
      expect(calc.some((l) => l.outcome === 'refused')).toBe(true);
      expect(calc.every((l) => typeof l.address === 'string')).toBe(true);
    });

    it(`lists execute_code and the excluded tools for an admin, whose script reaches every tool (${mode})`, async () => {
      const client = await connect(mode, 'admin-token');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['execute_code', 'hash']);
      expect(tools[0]!._meta).toMatchObject({ 'toolwire/source': 'native' });
      const result = await client.callTool({
        name: 'execute_code',
        arguments: {
          code: 'const sum = await fx__add({ a: 2, b: 3 }); const echoed = await fx__echo({ text: "hi" }); return { sum, echoed };',
        },
      });
      expect(result.isError).not.toBe(true);
      expect((result.structuredContent as any).returned).toMatchObject({ echoed: 'echo: hi' });
      // Tools code mode hides from the listing stay callable by name.
      const direct = await client.callTool({ name: 'fx__add', arguments: { a: 1, b: 1 } });
      expect(direct.isError).not.toBe(true);
    });
  }

  it('answers @ai-sdk/mcp clients with the same tool and typed result', async () => {
    const { createMCPClient } = await import('@ai-sdk/mcp');
    const client = await createMCPClient({
      transport: {
        type: 'http',
        url: `${bin.url}/mcp`,
        headers: { authorization: 'Bearer limited-token' },
      },
    });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['execute_code']);
      const result = await client.callTool({
        name: 'execute_code',
        arguments: { code: 'return await fx__echo({ text: "x" });' },
      });
      expect(result.isError).toBe(true);
      const ok = await client.callTool({
        name: 'execute_code',
        arguments: { code: 'console.log("hi"); return 6 * 7;' },
      });
      expect(ok.structuredContent).toMatchObject({ ok: true, returned: 42, output: 'hi' });
    } finally {
      await client.close();
    }
  });
});
