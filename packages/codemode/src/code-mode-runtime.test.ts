import { createQuickJSExecutor, SandboxBusyError } from '@toolwire/executor';
import { defineTool, toolFailureFromError } from '@toolwire/schema';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createCodeMode } from './code-mode.js';
import type { CodeModeToolSource, SourceTool } from './tool-source.js';

const executor = createQuickJSExecutor({ poolSize: 1 });
afterAll(() => executor.close());

describe('createCodeMode (runtime behaviour)', () => {
  it('runs independent calls in parallel with Promise.all', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    let release: () => void = () => {};
    const allStarted = new Promise<void>((resolve) => (release = resolve));
    const slow = defineTool({
      name: 'slow_echo',
      description: 'Echoes its input after every parallel call has started',
      inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      execute: async (args) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        if (inFlight === 3) release();
        // Serialised calls wait here until the test times out: a failure either way.
        await allStarted;
        inFlight--;
        return { n: args.n };
      },
    });
    const result = await createCodeMode({ source: [slow], executor }).run(
      `const r = await Promise.all([1, 2, 3].map((n) => slow_echo({ n })));\nreturn r.map((x) => (x as { n: number }).n);`,
    );
    expect(result).toMatchObject({ ok: true, value: [1, 2, 3] });
    expect(maxInFlight).toBe(3);
  });

  it('never lets a tool be shadowed by a global of the same name', async () => {
    const parseIntTool = defineTool(
      {
        name: 'parseInt',
        description: 'A tool that happens to share a global name',
        inputSchema: {
          type: 'object',
          properties: { text: { type: 'string' } },
          required: ['text'],
        },
        outputSchema: {
          type: 'object',
          properties: { tool: { type: 'boolean' } },
          required: ['tool'],
        },
        execute: () => ({ tool: true }),
      },
      { mode: 'lenient' },
    );
    const mode = createCodeMode({ source: [parseIntTool], executor });
    expect(mode.declarations.bindings).toEqual([{ identifier: 'parseInt_', toolName: 'parseInt' }]);
    const result = await mode.run(
      `const r = await parseInt_({ text: '42' });\nreturn { r, real: parseInt('42') };`,
    );
    expect(result).toMatchObject({ ok: true, value: { r: { tool: true }, real: 42 } });
  });

  it('reports runtime errors at the line the model wrote, TypeScript included', async () => {
    const result = await createCodeMode({ source: [], executor, typecheck: 'off' }).run(
      `interface Box { v: number }\nconst box: Box | null = null as Box | null;\nconst x: number = 1;\nreturn (box as any).v + x;`,
    );
    expect(result.ok).toBe(false);
    expect(result.error).toMatchObject({ kind: 'runtime', line: 4 });
  });

  it('picks up a changed tool list on refresh, and by itself when the source announces changes', async () => {
    const listeners = new Set<() => void>();
    let list: SourceTool[] = [
      { name: 'first', description: 'First tool', inputSchema: { type: 'object', properties: {} } },
    ];
    const source: CodeModeToolSource = {
      listTools: () => list,
      callTool: async (name) => ({
        content: [{ type: 'text', text: JSON.stringify({ from: name }) }],
      }),
      onToolsChanged: (listener) => {
        const notify = () => listener({});
        listeners.add(notify);
        return () => listeners.delete(notify);
      },
    };
    const mode = createCodeMode({ source, executor });
    expect(mode.executeCodeTool.description).toContain('declare function first(');
    list = [
      ...list,
      {
        name: 'second',
        description: 'Second tool',
        inputSchema: { type: 'object', properties: {} },
      },
    ];
    expect(mode.executeCodeTool.description).not.toContain('second');
    for (const listener of listeners) listener();
    expect(mode.executeCodeTool.description).toContain('declare function second(');
    expect(await mode.run('return await second();')).toMatchObject({
      ok: true,
      value: { from: 'second' },
    });
    list = list.slice(1);
    mode.refresh();
    expect(mode.declarations.bindings.map((b) => b.toolName)).toEqual(['second']);
    await mode.close();
    expect(listeners.size).toBe(0);
  });
});

describe('createCodeMode (many owners)', () => {
  it("refuses an owner's execute_code past its share as rateLimited with retryAfterMs, and runs another owner's", async () => {
    const shared = createQuickJSExecutor({ poolSize: 2, fairShare: { maxQueued: 0 } });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered = 0;
    const block = defineTool({
      name: 'block',
      description: 'Waits until the test lets it go',
      inputSchema: { type: 'object', properties: {} },
      execute: async () => {
        entered++;
        await gate;
        return 'done';
      },
    });
    const flood = createCodeMode({
      source: [block],
      executor: shared,
      typecheck: 'off',
      owner: 'flood',
    });
    const polite = createCodeMode({
      source: [block],
      executor: shared,
      typecheck: 'off',
      owner: 'polite',
    });
    try {
      const first = flood.run('return await block({});');
      await vi.waitFor(() => expect(entered).toBe(1));
      const refusal = await flood.executeCodeTool.execute!(
        { code: 'return 1;' },
        { toolCallId: 'call_1', signal: new AbortController().signal },
      ).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(SandboxBusyError);
      expect(toolFailureFromError(refusal)).toMatchObject({
        category: 'rateLimited',
        details: { retryAfterMs: expect.any(Number), resource: 'runs' },
      });
      const other = await polite.run('return 2;');
      expect(other).toMatchObject({ ok: true, value: 2, queuedMs: expect.any(Number) });
      // A run's own owner, over the code mode's.
      await expect(polite.run('return 3;', { owner: 'flood' })).rejects.toBeInstanceOf(
        SandboxBusyError,
      );
      release();
      expect(await first).toMatchObject({ ok: true, value: 'done', typecheckQueuedMs: 0 });
    } finally {
      await Promise.all([flood.close(), polite.close()]);
      await shared.close();
    }
  });
});
