import { fileURLToPath } from 'node:url';
import { CancelledError } from '@toolwire/schema';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRegistry } from '../node-registry.js';
import type { Registry } from '../registry-types.js';
import { runsAsTask, type ToolTask } from './task-call.js';

// The protocol's reference server over stdio: `simulate-research-query` must run as a task
// (`execution.taskSupport: "required"`), takes four stages of a second each, and asks the client
// (elicitation through the task) when the query is ambiguous.
const everything = fileURLToPath(
  new URL(
    '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
    import.meta.url,
  ),
);
const TOOL = 'everything__simulate-research-query';
const ANY_RESULT = {
  '~standard': {
    version: 1 as const,
    vendor: 'test',
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
  },
};

describe('runsAsTask', () => {
  it('runs required tools as tasks, optional ones when asked, others never', () => {
    expect(runsAsTask('required', false, undefined)).toBe(true);
    expect(runsAsTask('optional', undefined, undefined)).toBe(false);
    expect(runsAsTask('optional', undefined, { optional: true })).toBe(true);
    expect(runsAsTask('optional', false, { optional: true })).toBe(false);
    expect(runsAsTask('optional', true, undefined)).toBe(true);
    expect(runsAsTask('forbidden', true, { optional: true })).toBe(false);
    expect(runsAsTask(undefined, true, { optional: true })).toBe(false);
  });
});

describe('a tool that runs as a task (server-everything over stdio)', () => {
  let registry: Registry;
  const asked: Array<{ message: string; related: unknown }> = [];

  beforeAll(async () => {
    registry = createRegistry({
      config: {
        mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
      },
      nativeTools: [],
      // Far shorter than the task (about 4 s): each request of the call is bounded, not the task.
      callTimeoutMs: 1500,
      logger: { warn: () => undefined },
      handlers: {
        elicitation: async (params) => {
          asked.push({
            message: String(params.message),
            related: params._meta?.['io.modelcontextprotocol/related-task'],
          });
          return { action: 'accept', content: { interpretation: 'snake' } };
        },
      },
    });
    await registry.start();
    // The task tool is registered once the client's capabilities are known (list_changed).
    await vi.waitFor(() => expect(registry.resolve(TOOL)).toBeDefined(), { timeout: 30_000 });
  }, 60_000);
  afterAll(() => registry?.close());

  it('completes a call that outlives the request timeout, polling at the server hint', async () => {
    const seen: ToolTask[] = [];
    const result = await registry.callTool(
      TOOL,
      { topic: 'python' },
      { onTask: (task) => seen.push(task) },
    );
    expect(result.isError).not.toBe(true);
    expect(JSON.stringify(result.content)).toContain('Research Report: python');
    expect(seen[0]).toMatchObject({ status: 'working', pollInterval: 1000 });
    expect(seen.at(-1)!.status).toBe('completed');
    expect(new Set(seen.map((task) => task.taskId)).size).toBe(1);
  }, 60_000);

  it('answers the input a task asks for (input_required) with the registry handler', async () => {
    const seen: string[] = [];
    asked.length = 0;
    const result = await registry.callTool(
      TOOL,
      { topic: 'python', ambiguous: true },
      { onTask: (task) => seen.push(task.status) },
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain('multiple interpretations');
    expect(JSON.stringify(result.content)).toContain('Research Report: python (snake)');
  }, 60_000);

  it('cancels the task upstream when the call is aborted', async () => {
    const controller = new AbortController();
    let taskId: string | undefined;
    const calling = registry.callTool(
      TOOL,
      { topic: 'python' },
      {
        signal: controller.signal,
        onTask: (task) => {
          taskId = task.taskId;
          if (task.status === 'working') controller.abort();
        },
      },
    );
    await expect(calling).rejects.toBeInstanceOf(CancelledError);
    const client = registry.getClient('everything')!;
    await vi.waitFor(
      async () => {
        const task = (await client.request(
          { method: 'tasks/get', params: { taskId: taskId! } },
          ANY_RESULT,
        )) as { status?: string };
        expect(task.status).toBe('cancelled');
      },
      { timeout: 15_000, interval: 100 },
    );
  }, 60_000);
});
