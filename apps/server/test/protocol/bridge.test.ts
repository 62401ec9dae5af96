import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { modernCall, startGateway, type TestGateway } from '../helpers.js';
import {
  extTasksModern,
  NEW_ROOTS,
  sdkV1Client,
  sdkV2Client,
  type ProtocolClient,
  type SeenRequest,
} from './clients.js';
import { startEverything, type Everything } from './everything.js';

let everything: Everything;
let gateway: TestGateway;

beforeAll(async () => {
  everything = await startEverything();
  gateway = await startGateway({ mcpServers: { everything: { url: everything.url } } } as never, {
    clientRequestTimeoutMs: 3000,
  });
});
afterAll(async () => {
  await gateway?.close();
  await everything?.kill();
});

const text = (result: unknown): string =>
  ((result as { content?: Array<{ text?: string }> }).content ?? [])
    .map((c) => c.text ?? '')
    .join('\n');

describe('server-to-client requests through /mcp (2025-11-25)', () => {
  for (const kind of ['v2', 'v1'] as const) {
    it(`${kind}: lists the capability-gated tools and answers sampling, elicitation and roots as straight to the server`, async () => {
      const open = (url: string): Promise<ProtocolClient> =>
        kind === 'v2' ? sdkV2Client(url, 'legacy') : sdkV1Client(url);
      const direct = await open(everything.url);
      const gated = await open(`${gateway.url}/mcp`);
      try {
        const directNames = (await direct.listTools()).map((t) => t.name).sort();
        const gatedNames = (await gated.listTools())
          .map((t) => t.name)
          .filter((n) => n.startsWith('everything__'))
          .map((n) => n.slice('everything__'.length))
          .sort();
        expect(directNames).toContain('trigger-sampling-request');
        expect(gatedNames).toEqual(directNames);

        const pairs: Array<[string, Record<string, unknown>]> = [
          ['trigger-sampling-request', { prompt: 'capital of France?' }],
          ['trigger-elicitation-request', {}],
          ['trigger-url-elicitation', { url: 'https://example.com/ok', elicitationId: 'e1' }],
          ['get-roots-list', {}],
        ];
        for (const [tool, args] of pairs) {
          const straight = text(await direct.callTool(tool, args));
          const through = text(await gated.callTool(`everything__${tool}`, args));
          expect(through, tool).toBe(straight);
        }
        // The same requests, as many of each; the roots/list the upstream sends on its own once
        // the session starts may come before or after the first call's request, straight or not.
        expect(gated.seen.map((s) => s.method).sort()).toEqual(
          direct.seen.map((s) => s.method).sort(),
        );

        // -32042: URL elicitation required, as an error with its elicitations.
        const failure = async (client: ProtocolClient, name: string) =>
          client.callTool(name, { url: 'https://example.com/x', errorPath: true }).then(
            () => undefined,
            (error: { code?: number; data?: unknown }) => ({ code: error.code, data: error.data }),
          );
        const directError = await failure(direct, 'trigger-url-elicitation');
        const gatedError = await failure(gated, 'everything__trigger-url-elicitation');
        expect(directError?.code).toBe(-32042);
        expect(gatedError?.code).toBe(-32042);

        // Roots change: the upstream is told and asks again.
        await direct.setRoots(NEW_ROOTS);
        await gated.setRoots(NEW_ROOTS);
        await expect
          .poll(async () => text(await gated.callTool('everything__get-roots-list', {})))
          .toContain('file:///srv/docs');
        expect(text(await direct.callTool('get-roots-list', {}))).toContain('file:///srv/docs');
      } finally {
        await direct.close();
        await gated.close();
      }
    });
  }
});

describe('a 2026-07-28 client of a 2025-era upstream through /mcp', () => {
  it("gets the upstream's sampling, elicitation and roots requests as input_required, answered as straight to the server", async () => {
    const direct = await sdkV2Client(everything.url, 'auto');
    const gated = await sdkV2Client(`${gateway.url}/mcp`, 'modern');
    try {
      const directNames = (await direct.listTools()).map((t) => t.name).sort();
      const gatedNames = (await gated.listTools())
        .map((t) => t.name)
        .filter((n) => n.startsWith('everything__'))
        .map((n) => n.slice('everything__'.length))
        .sort();
      expect(gatedNames).toEqual(directNames);
      for (const [tool, args] of [
        ['trigger-sampling-request', { prompt: 'capital of France?' }],
        ['trigger-elicitation-request', {}],
        ['trigger-url-elicitation', { url: 'https://example.com/ok', elicitationId: 'e2' }],
        ['get-roots-list', {}],
      ] as const) {
        const straight = text(await direct.callTool(tool, args));
        const through = text(await gated.callTool(`everything__${tool}`, args));
        expect(through, tool).toBe(straight);
      }
      // The same kinds of questions. A 2026-07-28 client is asked only within its requests: the
      // roots the upstream asks for on its own right after its session starts reach it with a
      // later call, or not at all when the upstream session (shared by clients of one capability
      // set) started earlier, so the count of roots/list is not compared, only that it was asked.
      const kinds = (seen: Array<{ method: string }>) =>
        [...new Set(seen.map((s) => s.method))].sort();
      expect(kinds(gated.seen)).toEqual(kinds(direct.seen));
    } finally {
      await direct.close();
      await gated.close();
    }
  });
});

describe('logging and resource subscriptions on /mcp (2025-11-25)', () => {
  for (const kind of ['v2', 'v1'] as const) {
    it(`${kind}: log messages at the level set and resource updates of a subscription reach the client, as straight to the server`, async () => {
      const open = (url: string): Promise<ProtocolClient> =>
        kind === 'v2' ? sdkV2Client(url, 'legacy') : sdkV1Client(url);
      const uri = 'demo://resource/static/document/architecture.md';
      for (const [url, names] of [
        [everything.url, ''],
        [`${gateway.url}/mcp`, 'everything__'],
      ] as const) {
        const client = await open(url);
        try {
          await client.request('logging/setLevel', { level: 'debug' });
          await client.callTool(`${names}toggle-simulated-logging`, {});
          await expect.poll(() => client.logs.length, { timeout: 20_000 }).toBeGreaterThan(0);
          await client.callTool(`${names}toggle-simulated-logging`, {});
          await client.request('resources/subscribe', { uri });
          await client.callTool(`${names}toggle-subscriber-updates`, {});
          await expect.poll(() => client.updates, { timeout: 20_000 }).toContain(uri);
          await client.callTool(`${names}toggle-subscriber-updates`, {});
        } finally {
          await client.close();
        }
      }
    });
  }
});

describe('/servers/<name>/mcp in both revisions', () => {
  for (const mode of ['legacy', 'modern'] as const) {
    it(`${mode}: sampling, elicitation and roots as straight to the server, under the upstream's own names`, async () => {
      const direct = await sdkV2Client(everything.url, mode === 'legacy' ? 'legacy' : 'auto');
      const gated = await sdkV2Client(`${gateway.url}/servers/everything/mcp`, mode);
      try {
        const names = async (client: ProtocolClient) =>
          (await client.listTools()).map((t) => t.name).sort();
        expect(await names(gated)).toEqual(await names(direct));
        for (const [tool, args] of [
          ['trigger-sampling-request', { prompt: 'capital of Peru?' }],
          ['trigger-elicitation-request', {}],
          ['get-roots-list', {}],
        ] as const) {
          expect(text(await gated.callTool(tool, args)), tool).toBe(
            text(await direct.callTool(tool, args)),
          );
        }
      } finally {
        await direct.close();
        await gated.close();
      }
    });
  }
});

describe('tasks of the 2026-07-28 extension over a 2025-era upstream (ext-tasks)', () => {
  it('a task-required tool becomes a task; polled, its questions answered with tasks/update, its result inlined', async () => {
    const asked: SeenRequest[] = [];
    const v2 = new ClientV2({ name: 'protocol-test', version: '1.0.0' }, {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    } as never);
    await v2.connect(new TransportV2(new URL(`${gateway.url}/mcp`)));
    const session = await extTasksModern(`${gateway.url}/mcp`, asked)(v2);
    const direct = await sdkV1Client(everything.url);
    try {
      for (const ambiguous of [false, true]) {
        const args = { topic: 'python', ambiguous };
        const execution = await session.callTool('everything__simulate-research-query', args);
        expect(execution.kind).toBe('task');
        const { outcome } = await execution.settle();
        expect(outcome.status).toBe('completed');
        const through = text((outcome as { result: unknown }).result);
        const task = await direct.tasks.start('simulate-research-query', args);
        await pollTask(direct, task.taskId, ['input_required', 'completed']);
        const straight = text(await direct.tasks.result(task.taskId));
        expect(through).toBe(straight);
        if (ambiguous) expect(through).toContain('Clarification');
      }
      expect(asked.map((a) => a.method)).toEqual(['elicitation/create']);
    } finally {
      await session.close();
      await v2.close();
      await direct.close();
    }
  });

  it('a client without the extension is told the capability it lacks (-32003)', async () => {
    const answer = await modernCall(`${gateway.url}/mcp`, 'tools/call', {
      name: 'everything__simulate-research-query',
      arguments: { topic: 'x' },
    });
    expect(answer.body.error).toMatchObject({
      code: -32003,
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    });
  });
});

describe('tasks through /mcp (2025-11-25)', () => {
  for (const kind of ['v2', 'v1'] as const) {
    it(`${kind}: a task is created, polled, listed and its result fetched as straight to the server; input_required delivers its elicitation`, async () => {
      const open = (url: string): Promise<ProtocolClient> =>
        kind === 'v2' ? sdkV2Client(url, 'legacy') : sdkV1Client(url);
      const direct = await open(everything.url);
      const gated = await open(`${gateway.url}/mcp`);
      try {
        for (const ambiguous of [false, true]) {
          const args = { topic: 'python', ambiguous };
          const results: string[] = [];
          for (const [client, tool] of [
            [direct, 'simulate-research-query'],
            [gated, 'everything__simulate-research-query'],
          ] as const) {
            const task = await client.tasks.start(tool, args);
            expect(task.status).toBe('working');
            if (client === gated) expect(task.taskId).toMatch(/^tw-/);
            const state = await pollTask(client, task.taskId, [
              'input_required',
              'completed',
              'failed',
            ]);
            if (ambiguous) expect(state.status).toBe('input_required');
            // tasks/result: delivers the task's elicitation, then waits for the end.
            results.push(text(await client.tasks.result(task.taskId)));
            expect((await pollTask(client, task.taskId, ['completed'])).status).toBe('completed');
            expect((await client.tasks.list()).map((t) => t.taskId)).toContain(task.taskId);
          }
          expect(results[1]).toBe(results[0]);
          if (ambiguous) expect(results[1]).toContain('Clarification');
        }
        // The same requests, as many of each; the roots/list the upstream sends on its own once
        // the session starts may come before or after the first call's request, straight or not.
        expect(gated.seen.map((s) => s.method).sort()).toEqual(
          direct.seen.map((s) => s.method).sort(),
        );

        // Cancelled.
        for (const [client, tool] of [
          [direct, 'simulate-research-query'],
          [gated, 'everything__simulate-research-query'],
        ] as const) {
          const task = await client.tasks.start(tool, { topic: 'rust' });
          await client.tasks.cancel(task.taskId);
          expect((await client.tasks.get(task.taskId)).status).toBe('cancelled');
        }
      } finally {
        await direct.close();
        await gated.close();
      }
    });
  }

  it('an unknown task id is "not found", as straight to the server', async () => {
    const direct = await sdkV1Client(everything.url);
    const gated = await sdkV1Client(`${gateway.url}/mcp`);
    try {
      for (const [client, id] of [
        [direct, 'no-such-task'],
        [gated, 'no-such-task'],
        [gated, 'tw-AAAAAAAAAAAAAAAAAAAAAAAA'],
      ] as const) {
        await expect(client.request('tasks/get', { taskId: id })).rejects.toMatchObject({
          code: -32602,
        });
      }
    } finally {
      await direct.close();
      await gated.close();
    }
  });
});

/** Polls tasks/get (every 200 ms at most, as a client would) until the task is in one of `statuses`. */
function pollTask(client: ProtocolClient, taskId: string, statuses: string[]) {
  return vi.waitFor(
    async () => {
      const task = await client.tasks.get(taskId);
      if (!statuses.includes(task.status)) throw new Error(`task ${taskId} is ${task.status}`);
      return task;
    },
    { timeout: 60_000, interval: 200 },
  );
}

describe('tasks are bound to the token that created them', () => {
  let secured: TestGateway;
  beforeAll(async () => {
    secured = await startGateway(
      {
        mcpServers: { everything: { url: everything.url } },
        auth: {
          tokens: [
            { token: 'token-a', client: 'alice', allow: ['*'] },
            { token: 'token-b', client: 'bob', allow: ['*'] },
            { token: 'token-c', client: 'carol', allow: ['everything__echo'] },
          ],
        },
      } as never,
      { clientRequestTimeoutMs: 3000 },
    );
  });
  afterAll(() => secured?.close());

  it('another token gets "not found" for get, result, cancel and does not list it; a token that may not call the tool neither', async () => {
    const as = (token: string) =>
      sdkV1Client(`${secured.url}/mcp`, { authorization: `Bearer ${token}` });
    const alice = await as('token-a');
    const bob = await as('token-b');
    const carol = await as('token-c');
    try {
      const task = await alice.tasks.start('everything__simulate-research-query', {
        topic: 'go',
      });
      for (const other of [bob, carol]) {
        for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
          await expect(
            other.request(method, { taskId: task.taskId }),
            method,
          ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('not found') });
        }
        expect((await other.tasks.list()).map((t) => t.taskId)).not.toContain(task.taskId);
      }
      // Still alice's, untouched.
      expect((await alice.tasks.get(task.taskId)).status).not.toBe('cancelled');
      expect((await alice.tasks.list()).map((t) => t.taskId)).toContain(task.taskId);
      await alice.tasks.cancel(task.taskId);
      const refused = secured.logs.filter(
        (line) => line.event === 'task' && line.outcome === 'refused',
      );
      expect(refused.length).toBeGreaterThanOrEqual(6);
      expect(refused[0]).toMatchObject({ taskId: task.taskId, upstream: 'everything' });
    } finally {
      await Promise.all([alice.close(), bob.close(), carol.close()]);
    }
  });
});

describe('an upstream killed mid-task', () => {
  it('gives a failed task (get) and an error (result), not a hang', async () => {
    const doomed = await startEverything();
    const gw = await startGateway({ mcpServers: { doomed: { url: doomed.url } } } as never);
    const client = await sdkV1Client(`${gw.url}/mcp`);
    try {
      const task = await client.tasks.start('doomed__simulate-research-query', { topic: 'c' });
      const waiting = client.tasks.result(task.taskId).then(
        () => 'answered',
        (error: Error) => error.message,
      );
      await doomed.kill();
      expect(await waiting).toMatch(/Task failed: upstream "doomed" went away/);
      const failed = await client.tasks.get(task.taskId);
      expect(failed).toMatchObject({ taskId: task.taskId, status: 'failed' });
      expect(failed.statusMessage).toContain('went away');
      await expect(client.tasks.result(task.taskId)).rejects.toThrow(/Task failed/);
    } finally {
      await client.close();
      await gw.close();
      await doomed.kill();
    }
  });
});
