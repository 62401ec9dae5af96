import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { defineTool, toolContent } from './define-tool.js';
import { ToolExecutionError } from './errors.js';
import { executeToolCalls } from './execute-tool-calls.js';
import type { ToolCall } from './tool-call.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const echo = defineTool({
  name: 'echo',
  description: 'Returns its input text unchanged',
  inputSchema: Type.Object({ text: Type.String() }),
  execute: async ({ text }) => text,
});

const calls = (n: number, name = 'echo'): ToolCall[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `c${i}`,
    name,
    arguments: JSON.stringify({ text: `t${i}` }),
  }));

describe('executeToolCalls', () => {
  it('returns results in call order even when later calls finish first', async () => {
    const gates = [deferred(), deferred(), deferred()];
    const slow = defineTool({
      name: 'gate',
      description: 'Waits for its gate to open',
      inputSchema: Type.Object({ i: Type.Integer() }),
      execute: async ({ i }) => {
        await gates[i]!.promise;
        return { i };
      },
    });
    const running = executeToolCalls(
      [0, 1, 2].map((i) => ({ id: `g${i}`, name: 'gate', arguments: { i } })),
      [slow],
    );
    gates[2]!.resolve();
    gates[1]!.resolve();
    gates[0]!.resolve();
    const results = await running;
    expect(results.map((r) => r.toolCallId)).toEqual(['g0', 'g1', 'g2']);
    expect(results.map((r) => r.content)).toEqual(
      [0, 1, 2].map((i) => [{ type: 'json', value: { i } }]),
    );
  });

  it('runs calls in parallel up to the concurrency limit', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const tool = defineTool({
      name: 'count',
      description: 'Counts concurrent executions',
      inputSchema: Type.Object({}),
      execute: async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setImmediate(r));
        inFlight--;
        return 'ok';
      },
    });
    const many = Array.from({ length: 10 }, (_, i) => ({
      id: `k${i}`,
      name: 'count',
      arguments: {},
    }));
    await executeToolCalls(many, [tool], { concurrency: 3 });
    expect(maxInFlight).toBe(3);
    maxInFlight = 0;
    await executeToolCalls(many, [tool]);
    expect(maxInFlight).toBe(8);
  });

  it('captures errors per call with the seed categories', async () => {
    const failing = defineTool({
      name: 'fail',
      description: 'Always fails with a rate limit',
      inputSchema: Type.Object({}),
      execute: () => {
        throw new ToolExecutionError({
          category: 'rateLimited',
          message: 'slow down',
          details: { retryAfterMs: 500 },
        });
      },
    });
    const crashing = defineTool({
      name: 'crash',
      description: 'Throws a plain error',
      inputSchema: Type.Object({}),
      execute: () => {
        throw new Error('boom');
      },
    });
    const results = await executeToolCalls(
      [
        { id: '1', name: 'fail', arguments: {} },
        { id: '2', name: 'crash', arguments: {} },
        { id: '3', name: 'echo', arguments: '{"text": 5}' },
        { id: '4', name: 'ecko', arguments: {} },
        { id: '5', name: 'echo', arguments: '{"text": "fine"}' },
      ],
      [failing, crashing, echo],
    );
    expect(results.map((r) => r.error?.category ?? 'ok')).toEqual([
      'rateLimited',
      'unknown',
      'invalidArguments',
      'resourceNotFound',
      'ok',
    ]);
    expect(results[0]!.content[0]).toEqual({
      type: 'text',
      text: 'Tool execution failed (rateLimited): slow down\nDetails: retryAfterMs: 500',
    });
    expect(results[2]!.error!.message).toContain('/text: must be string');
    expect(results[3]!.error!.message).toBe('No tool named "ecko"; did you mean "echo"?');
    expect(results[4]).toMatchObject({ isError: false, content: [{ type: 'text', text: 'fine' }] });
  });

  it('times out a call that takes too long and aborts its signal', async () => {
    let seenAbort = false;
    const hang = defineTool({
      name: 'hang',
      description: 'Never finishes on its own',
      inputSchema: Type.Object({}),
      execute: (_args, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            seenAbort = true;
            reject(signal.reason);
          });
        }),
    });
    const [result] = await executeToolCalls([{ id: 'h', name: 'hang', arguments: {} }], [hang], {
      timeoutMs: 20,
    });
    expect(result).toMatchObject({
      isError: true,
      error: { category: 'executionTimeout', message: 'Tool "hang" did not finish within 20 ms' },
    });
    expect(seenAbort).toBe(true);
  });

  it('a timeout still answers when the tool ignores its signal', async () => {
    const stubborn = defineTool({
      name: 'stubborn',
      description: 'Ignores cancellation',
      inputSchema: Type.Object({}),
      execute: () => new Promise(() => undefined),
    });
    const [result] = await executeToolCalls(
      [{ id: 's', name: 'stubborn', arguments: {} }],
      [stubborn],
      { timeoutMs: 10 },
    );
    expect(result!.error!.category).toBe('executionTimeout');
  });

  it('cancels in-flight and not-yet-started calls when the signal aborts', async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const wait = defineTool({
      name: 'wait',
      description: 'Waits until cancelled',
      inputSchema: Type.Object({}),
      execute: (_args, { toolCallId, signal }) => {
        started.push(toolCallId);
        if (started.length === 2) queueMicrotask(() => controller.abort());
        return new Promise((_r, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason)),
        );
      },
    });
    const results = await executeToolCalls(
      ['w1', 'w2', 'w3'].map((id) => ({ id, name: 'wait', arguments: {} })),
      [wait],
      { concurrency: 2, signal: controller.signal },
    );
    expect(started).toEqual(['w1', 'w2']);
    expect(results.map((r) => r.error?.category)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(results.map((r) => r.toolCallId)).toEqual(['w1', 'w2', 'w3']);
  });

  it('checks output against the output schema and passes rich content through', async () => {
    const typed = defineTool({
      name: 'typed',
      description: 'Returns the wrong output type',
      inputSchema: Type.Object({}),
      outputSchema: Type.Object({ n: Type.Number() }),
      execute: async () => ({ n: 'not a number' }) as unknown as { n: number },
    });
    const picture = defineTool({
      name: 'picture',
      description: 'Returns an image',
      inputSchema: Type.Object({}),
      execute: async () =>
        toolContent([{ type: 'image', data: 'aGVsbG8=', mediaType: 'image/png' }]),
    });
    const [bad, image] = await executeToolCalls(
      [
        { id: 'a', name: 'typed', arguments: {} },
        { id: 'b', name: 'picture', arguments: {} },
      ],
      [typed, picture],
    );
    expect(bad!.error!.message).toMatch(/does not match its output schema/);
    expect(image).toMatchObject({
      isError: false,
      content: [{ type: 'image', mediaType: 'image/png' }],
    });
  });

  it('accepts a custom handler and records durations', async () => {
    const results = await executeToolCalls(calls(2), async (call) => ({
      toolCallId: call.id,
      toolName: call.name,
      content: [],
      isError: false,
    }));
    expect(results.every((r) => typeof r.durationMs === 'number')).toBe(true);
  });
});
