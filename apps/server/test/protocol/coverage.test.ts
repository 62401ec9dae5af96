// The server README's "Protocol coverage" table, kept true: every cell (feature × revision ×
// route) is what the official clients observed through the gateway compared with straight to the
// protocol's reference server. TypeScript SDK v2 (with ext-tasks for tasks) and v1, and the Python
// `mcp` client; "yes" means every client of that revision saw the same through that route.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SERVER_ROOT } from '../global-setup.js';
import { startGateway, type TestGateway } from '../helpers.js';
import { observeApp, startAppsServer, throughAggregated } from './apps-server.js';
import { extTasksModern, sdkV1Client, sdkV2Client, type ProtocolClient } from './clients.js';
import { startEverything, type Everything } from './everything.js';
import { observeWithPython, pythonWithMcp } from './python.js';

type Revision = '2025-11-25' | '2026-07-28';
type Route = '/mcp' | '/servers/<name>/mcp';
const REVISIONS: Revision[] = ['2025-11-25', '2026-07-28'];
const ROUTES: Route[] = ['/mcp', '/servers/<name>/mcp'];

const CALLS: Record<string, { name: string; arguments: Record<string, unknown> }> = {
  sampling: { name: 'trigger-sampling-request', arguments: { prompt: 'capital of France?' } },
  'elicitation (form)': { name: 'trigger-elicitation-request', arguments: {} },
  'elicitation (URL)': {
    name: 'trigger-url-elicitation',
    arguments: { url: 'https://example.com/ok', elicitationId: 'cov' },
  },
  roots: { name: 'get-roots-list', arguments: {} },
  'resource links, embedded resources': {
    name: 'get-resource-links',
    arguments: { count: 2 },
  },
  'structured content': { name: 'get-structured-content', arguments: { location: 'New York' } },
};

/** feature → "revision route" → every observation equal so far. */
const observed = new Map<string, Map<string, boolean>>();
function record(feature: string, revision: Revision, route: Route, same: boolean): void {
  let row = observed.get(feature);
  if (!row) observed.set(feature, (row = new Map()));
  const key = `${revision} ${route}`;
  row.set(key, (row.get(key) ?? true) && same);
}

let everything: Everything;
let gateway: TestGateway;
const endpoint = (route: Route) =>
  `${gateway.url}${route === '/mcp' ? '/mcp' : '/servers/everything/mcp'}`;
const prefix = (route: Route) => (route === '/mcp' ? 'everything__' : '');

beforeAll(async () => {
  everything = await startEverything();
  gateway = await startGateway({ mcpServers: { everything: { url: everything.url } } } as never);
});
afterAll(async () => {
  await gateway?.close();
  await everything?.kill();
});

const canonical = (result: unknown): string => {
  const { content, structuredContent, isError } = result as Record<string, unknown>;
  return JSON.stringify({ content, structuredContent, isError: isError === true });
};

let urlRuns = 0;

/** What one TypeScript client observes of each feature at one endpoint. */
async function observeTs(client: ProtocolClient, names: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const tools = (await client.listTools())
    .map((t) => t.name)
    .filter((n) => n.startsWith(names))
    .map((n) => n.slice(names.length))
    .sort();
  out['capability-gated tools listed'] = JSON.stringify(tools);
  for (const [feature, call] of Object.entries(CALLS)) {
    try {
      out[feature] = canonical(await client.callTool(names + call.name, call.arguments));
    } catch (error) {
      out[feature] = `thrown ${(error as { code?: number }).code}`;
    }
  }
  try {
    // A URL of its own each time: the server lets a second call with the same URL through (the
    // retry of a satisfied prerequisite), and a 2026-07-28 client's upstream session is its
    // token's and capability set's, shared by its connections.
    await client.callTool(`${names}trigger-url-elicitation`, {
      url: `https://example.com/needed/${++urlRuns}`,
      errorPath: true,
    });
    out['URL elicitation required (-32042)'] = 'no error';
  } catch (error) {
    out['URL elicitation required (-32042)'] = String((error as { code?: number }).code);
  }
  let progress = 0;
  const long = await client.callTool(
    `${names}trigger-long-running-operation`,
    { duration: 0.2, steps: 3 },
    { onProgress: () => progress++ },
  );
  out.progress = `${canonical(long)} ${progress}`;
  return out;
}

async function taskOutcome(run: () => Promise<unknown>): Promise<string> {
  try {
    const result = await run();
    return canonical(result);
  } catch (error) {
    return `thrown ${(error as Error).message}`;
  }
}

/** A task's final result as a 2025-11-25 client (raw requests) gets it. */
async function legacyTask(client: ProtocolClient, tool: string, ambiguous: boolean) {
  return taskOutcome(async () => {
    const task = await client.tasks.start(tool, { topic: 'python', ambiguous });
    await vi.waitFor(
      async () => {
        const state = await client.tasks.get(task.taskId);
        if (state.status === 'working') throw new Error(`task ${task.taskId} is still working`);
      },
      { timeout: 60_000, interval: 200 },
    );
    return client.tasks.result(task.taskId);
  });
}

/** A task's final result as ext-tasks drives it over a 2026-07-28 client. */
async function modernTask(url: string, tool: string, ambiguous: boolean) {
  const v2 = new ClientV2({ name: 'coverage', version: '1.0.0' }, {
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  } as never);
  await v2.connect(new TransportV2(new URL(url)));
  const session = await extTasksModern(url, [])(v2);
  try {
    return await taskOutcome(async () => {
      const execution = await session.callTool(tool, { topic: 'python', ambiguous });
      const { outcome } = await execution.settle();
      if (outcome.status !== 'completed') throw new Error(`task ${outcome.status}`);
      return outcome.result;
    });
  } finally {
    await session.close();
    await v2.close();
  }
}

describe('the README "Protocol coverage" table', () => {
  it('TypeScript SDK v2 and v1: each feature through each route as straight to the server', async () => {
    const kinds: Array<{
      revision: Revision;
      open: (url: string) => Promise<ProtocolClient>;
      direct: (url: string) => Promise<ProtocolClient>;
    }> = [
      {
        revision: '2025-11-25',
        open: (u) => sdkV2Client(u, 'legacy'),
        direct: (u) => sdkV2Client(u, 'legacy'),
      },
      { revision: '2025-11-25', open: (u) => sdkV1Client(u), direct: (u) => sdkV1Client(u) },
      {
        revision: '2026-07-28',
        open: (u) => sdkV2Client(u, 'modern'),
        direct: (u) => sdkV2Client(u, 'auto'),
      },
    ];
    for (const kind of kinds) {
      const straight = await kind.direct(everything.url);
      const expected = await observeTs(straight, '');
      await straight.close();
      for (const route of ROUTES) {
        const client = await kind.open(endpoint(route));
        const got = await observeTs(client, prefix(route));
        await client.close();
        for (const [feature, value] of Object.entries(expected)) {
          record(feature, kind.revision, route, got[feature] === value);
        }
      }
    }
  });

  it('logging and resource subscriptions (2025-11-25: logging/setLevel, resources/subscribe)', async () => {
    const uri = 'demo://resource/static/document/architecture.md';
    /** Whether log messages and a subscribed resource's updates arrive. */
    const observe = async (client: ProtocolClient, names: string) => {
      const seen = { logging: false, subscriptions: false };
      try {
        await client.request('logging/setLevel', { level: 'debug' });
        await client.callTool(`${names}toggle-simulated-logging`, {});
        await expect.poll(() => client.logs.length, { timeout: 15_000 }).toBeGreaterThan(0);
        await client.callTool(`${names}toggle-simulated-logging`, {});
        seen.logging = true;
        await client.request('resources/subscribe', { uri });
        await client.callTool(`${names}toggle-subscriber-updates`, {});
        await expect.poll(() => client.updates, { timeout: 15_000 }).toContain(uri);
        await client.callTool(`${names}toggle-subscriber-updates`, {});
        seen.subscriptions = true;
      } catch {
        // What did not arrive is the observation.
      } finally {
        await client.close();
      }
      return seen;
    };
    for (const open of [(u: string) => sdkV2Client(u, 'legacy'), (u: string) => sdkV1Client(u)]) {
      const straight = await observe(await open(everything.url), '');
      expect(straight).toEqual({ logging: true, subscriptions: true });
      for (const route of ROUTES) {
        const got = await observe(await open(endpoint(route)), prefix(route));
        record('logging', '2025-11-25', route, got.logging === straight.logging);
        record(
          'resource subscriptions',
          '2025-11-25',
          route,
          got.subscriptions === straight.subscriptions,
        );
      }
    }
  });

  // Making the virtual environment the first time takes minutes (pip); later runs reuse it.
  it(
    'the Python mcp client: each feature through each route as straight to the server',
    { timeout: 900_000 },
    async () => {
      const python = pythonWithMcp();
      const calls = Object.values(CALLS);
      const features = Object.keys(CALLS);
      for (const [revision, mode] of [
        ['2025-11-25', 'legacy'],
        ['2026-07-28', 'auto'],
      ] as const) {
        const straight = await observeWithPython(python, everything.url, mode, '', calls);
        for (const route of ROUTES) {
          const got = await observeWithPython(python, endpoint(route), mode, prefix(route), calls);
          expect(got.protocolVersion, `${revision} ${route}`).toBe(revision);
          record(
            'capability-gated tools listed',
            revision,
            route,
            JSON.stringify(got.tools) === JSON.stringify(straight.tools),
          );
          features.forEach((feature, i) =>
            record(
              feature,
              revision,
              route,
              JSON.stringify(got.calls[i]) === JSON.stringify(straight.calls[i]),
            ),
          );
        }
      }
    },
  );

  it('tasks (2025-11-25 core tasks; the 2026-07-28 extension with ext-tasks)', async () => {
    for (const ambiguous of [false, true]) {
      const feature = ambiguous ? 'tasks: input_required' : 'tasks';
      const direct = await sdkV1Client(everything.url);
      const expected = await legacyTask(direct, 'simulate-research-query', ambiguous);
      await direct.close();
      expect(expected).toContain('Research Report');
      for (const route of ROUTES) {
        const legacy = await sdkV1Client(endpoint(route));
        record(
          feature,
          '2025-11-25',
          route,
          (await legacyTask(legacy, `${prefix(route)}simulate-research-query`, ambiguous)) ===
            expected,
        );
        await legacy.close();
        record(
          feature,
          '2026-07-28',
          route,
          (await modernTask(
            endpoint(route),
            `${prefix(route)}simulate-research-query`,
            ambiguous,
          )) === expected,
        );
      }
    }
  });

  it('MCP Apps (the ui:// view of an ext-apps server: its tool, listing and read)', async () => {
    const apps = await startAppsServer();
    const viaGateway = await startGateway({ mcpServers: { apps: { url: apps.url } } } as never);
    try {
      const kinds: Array<[Revision, (url: string) => Promise<ProtocolClient>, typeof sdkV1Client]> =
        [
          ['2025-11-25', (u) => sdkV2Client(u, 'legacy'), (u) => sdkV2Client(u, 'legacy')],
          ['2025-11-25', (u) => sdkV1Client(u), (u) => sdkV1Client(u)],
          ['2026-07-28', (u) => sdkV2Client(u, 'modern'), (u) => sdkV2Client(u, 'auto')],
        ];
      for (const [revision, open, direct] of kinds) {
        const observe = async (client: ProtocolClient, names: string) => {
          try {
            return await observeApp(client, names);
          } finally {
            await client.close();
          }
        };
        const straight = await observe(await direct(apps.url), '');
        expect(straight.resource).toBeDefined();
        for (const route of ROUTES) {
          const url = `${viaGateway.url}${route === '/mcp' ? '/mcp' : '/servers/apps/mcp'}`;
          const got = await observe(await open(url), route === '/mcp' ? 'apps__' : '');
          const expected = route === '/mcp' ? throughAggregated(straight, 'apps') : straight;
          record(
            'MCP Apps (ui:// resources)',
            revision,
            route,
            JSON.stringify(got) === JSON.stringify(expected),
          );
        }
      }
    } finally {
      await viaGateway.close();
      await apps.close();
    }
  });

  it('says what was observed, cell by cell', () => {
    const readme = readFileSync(join(SERVER_ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('## Protocol coverage');
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const rows = section
      .split('\n')
      .filter((line) => line.startsWith('|'))
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    const [header, , ...body] = rows;
    expect(header!.slice(1)).toEqual(
      REVISIONS.flatMap((r) => ROUTES.map((route) => `${r} \`${route}\``)),
    );
    const table = new Map(body.map((row) => [row[0]!, row.slice(1)]));
    expect([...table.keys()].sort()).toEqual([...observed.keys()].sort());
    for (const [feature, row] of observed) {
      const cells = table.get(feature)!;
      REVISIONS.flatMap((r) => ROUTES.map((route) => `${r} ${route}`)).forEach((key, i) => {
        // 'n/a': not in that revision (2026-07-28 removed logging/setLevel and resources/subscribe).
        expect(cells[i], `${feature} × ${key}`).toBe(
          row.has(key) ? (row.get(key) ? 'yes' : 'no') : 'n/a',
        );
      });
    }
  });
});
