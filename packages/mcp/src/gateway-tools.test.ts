import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { executeToolCalls, type AnyTool, type ToolResult } from '@toolwire/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistry } from './node-registry.js';
import type { Registry } from './registry-types.js';

let registry: Registry;
let tools: AnyTool[];

beforeAll(async () => {
  registry = createRegistry({
    logger: { warn: () => undefined },
    backoff: { initialMs: 60_000, maxMs: 60_000 },
    config: {
      mcpServers: {
        fx: fixtureStdioConfig(),
        time: fixtureStdioConfig({ name: 'clock', tools: ['echo'] }),
        gone: { command: 'toolwire-no-such-command-xyz' },
      },
    },
  });
  await registry.start();
  tools = registry.asTools({ mode: 'gateway' });
});

afterAll(() => registry.close());

async function call(name: string, args: unknown): Promise<ToolResult> {
  const [result] = await executeToolCalls([{ id: 'g1', name, arguments: args }], tools);
  return result!;
}

describe('createGatewayTools', () => {
  it('gives one tool per server plus search, keeps native tools, and never lets a server shadow a native name', () => {
    expect(tools.map((tool) => tool.name)).toEqual(
      ['hash', 'time', 'calculate', 'search', 'fx', 'time_7e1a5a4f', 'gone'].map((n) =>
        n.startsWith('time_') ? expect.stringMatching(/^time_[0-9a-f]{8}$/) : n,
      ),
    );
    const fx = tools.find((tool) => tool.name === 'fx')!;
    expect(fx.inputSchema.properties?.action?.enum).toEqual(['list', 'describe', 'execute']);
  });

  it('lists, describes and executes a server tool', async () => {
    const listed = (await call('fx', { action: 'list' })).structuredContent as {
      tools: Array<{ name: string }>;
    };
    expect(listed.tools.map((t) => t.name)).toContain('add');
    const described = (await call('fx', { action: 'describe', tool: 'add' })).structuredContent as {
      inputSchema: { required: string[] };
    };
    expect(described.inputSchema.required).toEqual(['a', 'b']);
    const executed = await call('fx', {
      action: 'execute',
      tool: 'add',
      arguments: { a: 4, b: 5 },
    });
    expect(executed).toMatchObject({ isError: false, structuredContent: { sum: 9 } });
  });

  it('explains mistakes in words the model can act on', async () => {
    const unknown = await call('fx', { action: 'execute', tool: 'nope' });
    expect(unknown).toMatchObject({ isError: true, error: { category: 'resourceNotFound' } });
    expect(unknown.error?.message).toContain('use action "list"');
    const badArgs = await call('fx', { action: 'execute', tool: 'add', arguments: { a: 'x' } });
    expect(badArgs).toMatchObject({ isError: true, error: { category: 'invalidArguments' } });
    expect((await call('fx', { action: 'describe' })).error?.message).toContain('needs "tool"');
  });

  it('reports a server that is down, with its reason, on list', async () => {
    const listed = (await call('gone', { action: 'list' })).structuredContent as {
      status: string;
      reason: string;
    };
    expect(listed).toMatchObject({
      status: 'down',
      reason: expect.stringContaining('command not found'),
    });
  });

  it('searches every tool by name and description', async () => {
    const result = await call('search', { query: 'add two numbers' });
    const hits = result.structuredContent as Array<{ server: string; tool: string; call: unknown }>;
    expect(hits[0]).toMatchObject({
      server: 'fx',
      tool: 'add',
      call: { tool: 'fx', arguments: { action: 'execute', tool: 'add' } },
    });
    expect(registry.search('hash')[0]).toMatchObject({ name: 'hash', source: 'native' });
    expect(registry.search('zzzz-nothing')).toEqual([]);
  });
});

describe('createGatewayTools (lazy registry)', () => {
  it('connects a server the first time the model lists its tools', async () => {
    const lazy = createRegistry({
      logger: { warn: () => undefined },
      lazy: true,
      config: { mcpServers: { fx: fixtureStdioConfig() } },
    });
    try {
      await lazy.start();
      expect(lazy.servers()[0]?.status).toBe('idle');
      const gateway = lazy.asTools({ mode: 'gateway' });
      const [listed] = await executeToolCalls(
        [{ id: 'l1', name: 'fx', arguments: { action: 'list' } }],
        gateway,
      );
      expect((listed!.structuredContent as { tools: unknown[] }).tools).toHaveLength(8);
      expect(lazy.servers()[0]?.status).toBe('ok');
    } finally {
      await lazy.close();
    }
  });
});
