// The gateway must answer what the upstreams answer, only namespaced. fast-check generates
// sequences of operations; each runs against the real upstreams directly (the official SDK client)
// and through the gateway, and what the two clients observe is compared, with faults in between
// (an upstream killed and restarted, config reloads, gateway restarts from the tool cache file,
// concurrent clients). `npm test` runs a fixed seed and a bounded number of sequences;
// `pnpm --filter @toolwire/server test:soak` takes TOOLWIRE_SOAK_SEED and TOOLWIRE_SOAK_SECONDS.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { serverEntry } from '@toolwire/mcp/node';
import { startFixtureHttpServer, type FixtureHttpServer } from '@toolwire/testing/mcp';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { oldConnectionsGone, startGateway, type TestGateway } from './helpers.js';

const SOAK = process.env.TOOLWIRE_SOAK_SECONDS !== undefined;
const SEED = Number(process.env.TOOLWIRE_SOAK_SEED ?? 1616);
const RUNS = SOAK ? 1_000_000 : 25;
const TIME_LIMIT_MS = SOAK ? Number(process.env.TOOLWIRE_SOAK_SECONDS) * 1000 : undefined;

const resolve = createRequire(import.meta.url).resolve;
const MEMORY = serverEntry('@modelcontextprotocol/server-memory', resolve);
const FILESYSTEM = serverEntry('@modelcontextprotocol/server-filesystem', resolve);

type Mode = 'legacy' | 'auto';

type Op =
  | { kind: 'memCreate'; name: string; observation: string; client: number }
  | { kind: 'memAdd'; name: string; observation: string; client: number }
  | { kind: 'memRead'; client: number }
  | { kind: 'memSearch'; query: string; client: number }
  | { kind: 'fsWrite'; file: string; text: string; client: number }
  | { kind: 'fsRead'; file: string; client: number }
  | { kind: 'fxEcho'; text: string; client: number }
  | { kind: 'fxChange'; add: string }
  | { kind: 'concurrentReads'; file: string }
  | { kind: 'fxRestart' }
  | { kind: 'reload' }
  | { kind: 'gatewayRestart' };

const name = fc.constantFrom('ada', 'bob', 'cy');
const file = fc.constantFrom('a.txt', 'b.txt', 'c.txt');
const word = fc.string({ unit: fc.constantFrom('x', 'y', 'z', ' ', 'é', '€'), maxLength: 8 });
const client = fc.integer({ min: 0, max: 1 });

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('memCreate' as const),
      name,
      observation: word,
      client,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('memAdd' as const), name, observation: word, client }),
  },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('memRead' as const), client }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('memSearch' as const), query: name, client }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('fsWrite' as const), file, text: word, client }),
  },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('fsRead' as const), file, client }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fxEcho' as const), text: word, client }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('fxChange' as const),
      add: fc.constantFrom('t1', 't2', 't3'),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('concurrentReads' as const), file }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'fxRestart' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reload' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'gatewayRestart' as const }) },
);

/** What a client observes of a tool call: error or not, and its text with the temp roots hidden. */
interface Observation {
  error: boolean;
  text: string;
}

interface Side {
  root: string;
  fixture: FixtureHttpServer;
}

class World {
  readonly base = mkdtempSync(join(tmpdir(), 'toolwire-differential-'));
  readonly direct: Side & { mem?: Client; fs?: Client; fx?: Client } = {
    root: join(this.base, 'direct'),
  } as never;
  readonly gated: Side = { root: join(this.base, 'gateway') } as never;
  gateway!: TestGateway;
  clients: Client[] = [];
  configFile = join(this.base, 'toolwire.config.json');
  reloads = 0;
  counts = { sequences: 0, operations: 0 };

  constructor(readonly mode: Mode) {}

  async start(): Promise<void> {
    for (const side of [this.direct, this.gated]) {
      mkdirSync(join(side.root, 'files'), { recursive: true });
      side.fixture = await startFixtureHttpServer({ tools: ['echo', 'change_tools'] });
    }
    this.direct.mem = await this.stdio(MEMORY, [], {
      MEMORY_FILE_PATH: join(this.direct.root, 'memory.jsonl'),
    });
    this.direct.fs = await this.stdio(FILESYSTEM, [join(this.direct.root, 'files')]);
    this.direct.fx = await this.http(this.direct.fixture.url);
    this.writeConfig();
    await this.startGateway();
  }

  private writeConfig(): void {
    const root = this.gated.root;
    writeFileSync(
      this.configFile,
      JSON.stringify({
        mcpServers: {
          mem: {
            command: process.execPath,
            args: [MEMORY],
            env: { MEMORY_FILE_PATH: join(root, 'memory.jsonl') },
          },
          fs: { command: process.execPath, args: [FILESYSTEM, join(root, 'files')] },
          fx: { url: this.gated.fixture.url },
        },
        // Cache on for some tools: reads must still see every write.
        // Each reload changes the cache TTL (same registry); every other one the timeout too,
        // which makes a new registry (the stdio upstreams restart).
        cache: { tools: ['mem__read_graph', 'fs__read_text_file'], ttlSeconds: 60 + this.reloads },
        policy: { timeoutMs: 10_000 + (this.reloads % 2) * 1000 },
      }),
    );
  }

  private async startGateway(): Promise<void> {
    this.gateway = await startGateway(undefined as never, {
      configPath: this.configFile,
      watchConfig: false,
      backoff: { initialMs: 100, maxMs: 400 },
    });
    this.clients = [
      await this.http(`${this.gateway.url}/mcp`),
      await this.http(`${this.gateway.url}/mcp`),
    ];
  }

  private async stdio(entry: string, args: string[], env: Record<string, string> = {}) {
    const client = new Client({ name: 'direct', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [entry, ...args],
        env: { ...(process.env as Record<string, string>), ...env },
        stderr: 'ignore',
      }),
    );
    return client;
  }

  private async http(url: string): Promise<Client> {
    const client = new Client({ name: 'differential', version: '1.0.0' }, {
      versionNegotiation: { mode: this.mode },
    } as never);
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return client;
  }

  private normalize(text: string): string {
    return text.replaceAll(this.direct.root, '<root>').replaceAll(this.gated.root, '<root>');
  }

  private async observe(run: () => Promise<unknown>): Promise<Observation> {
    try {
      const result = (await run()) as { isError?: boolean; content?: Array<{ text?: string }> };
      const text = (result.content ?? []).map((c) => c.text ?? '').join('\n');
      return { error: result.isError === true, text: this.normalize(text) };
    } catch (error) {
      return { error: true, text: `thrown: ${this.normalize((error as Error).message)}` };
    }
  }

  private async pair(
    direct: Client,
    tool: string,
    args: Record<string, unknown>,
    upstream: string,
    via = 0,
  ): Promise<readonly [Observation, Observation]> {
    const a = await this.observe(() => direct.callTool({ name: tool, arguments: args }));
    const b = await this.observe(() =>
      this.clients[via]!.callTool({ name: `${upstream}__${tool}`, arguments: args }),
    );
    return [a, b] as const;
  }

  private async same(
    direct: Client,
    tool: string,
    args: Record<string, unknown>,
    upstream: string,
    via = 0,
  ): Promise<void> {
    // The direct call first, then the gateway's: both sides see the same history.
    const [a, b] = await this.pair(direct, tool, args, upstream, via);
    expect(b, `${upstream}__${tool} ${JSON.stringify(args)}`).toEqual(a);
  }

  /** The gateway lists the fixture's current tools (namespaced) within 2 s. */
  private async listsAgree(): Promise<void> {
    // A name the upstream lists twice is listed once (the registry keeps the first definition).
    const expected = [
      ...new Set((await this.direct.fx!.listTools()).tools.map((t) => `fx__${t.name}`)),
    ].sort();
    await vi.waitFor(
      async () => {
        const listings = await Promise.all(this.clients.map((c) => c.listTools()));
        for (const listing of listings) {
          const names = listing.tools
            .map((t) => t.name)
            .filter((n) => n.startsWith('fx__'))
            .sort();
          expect(names, 'the gateway lists the upstream tools within 2 s').toEqual(expected);
        }
      },
      { timeout: 2_000, interval: 50 },
    );
  }

  async apply(step: Op): Promise<void> {
    this.counts.operations++;
    const { mem, fx } = this.direct;
    switch (step.kind) {
      case 'memCreate':
        return this.same(
          mem!,
          'create_entities',
          {
            entities: [{ name: step.name, entityType: 'person', observations: [step.observation] }],
          },
          'mem',
          step.client,
        );
      case 'memAdd':
        return this.same(
          mem!,
          'add_observations',
          { observations: [{ entityName: step.name, contents: [step.observation] }] },
          'mem',
          step.client,
        );
      case 'memRead':
        return this.same(mem!, 'read_graph', {}, 'mem', step.client);
      case 'memSearch':
        return this.same(mem!, 'search_nodes', { query: step.query }, 'mem', step.client);
      case 'fsWrite':
        return this.sameFs('write_file', step.file, step.client, { content: step.text });
      case 'fsRead':
        return this.sameFs('read_text_file', step.file, step.client);
      case 'fxEcho':
        return this.same(fx!, 'echo', { text: step.text }, 'fx', step.client);
      case 'fxChange': {
        await fx!.callTool({ name: 'change_tools', arguments: { add: step.add } });
        await this.clients[0]!.callTool({
          name: 'fx__change_tools',
          arguments: { add: step.add },
        });
        return this.listsAgree();
      }
      case 'concurrentReads': {
        const reads = await Promise.all([
          this.pairFs(step.file, 0),
          this.pairFs(step.file, 1),
          this.pair(mem!, 'read_graph', {}, 'mem', 0),
          this.pair(mem!, 'read_graph', {}, 'mem', 1),
        ]);
        for (const [a, b] of reads) expect(b).toEqual(a);
        return;
      }
      case 'fxRestart': {
        const ports = [this.direct.fixture.port, this.gated.fixture.port];
        await Promise.all([this.direct.fixture.close(), this.gated.fixture.close()]);
        // A dead upstream: calls to it fail with an error that names it; the others answer.
        const dead = await this.observe(() =>
          this.clients[0]!.callTool({ name: 'fx__echo', arguments: { text: 'x' } }),
        );
        expect(dead.error).toBe(true);
        expect(dead.text).toMatch(/fx/);
        await this.same(mem!, 'read_graph', {}, 'mem');
        // The old servers' kept-alive sockets leave the fetch pool this process shares.
        await Promise.all(ports.map((port) => oldConnectionsGone(`http://127.0.0.1:${port}/mcp`)));
        this.direct.fixture = await startFixtureHttpServer({
          tools: ['echo', 'change_tools'],
          port: ports[0],
        });
        this.gated.fixture = await startFixtureHttpServer({
          tools: ['echo', 'change_tools'],
          port: ports[1],
        });
        await fx!.close().catch(() => undefined);
        this.direct.fx = await this.http(this.direct.fixture.url);
        // Back within the probe interval and the registry's backoff.
        await vi.waitFor(
          async () => {
            const back = await this.observe(() =>
              this.clients[0]!.callTool({ name: 'fx__echo', arguments: { text: 'back' } }),
            );
            expect(back.error, 'fx answers again after its restart').toBe(false);
          },
          { timeout: 10_000, interval: 100 },
        );
        return this.listsAgree();
      }
      case 'reload':
        this.reloads++;
        this.writeConfig();
        await this.gateway.server.reload();
        return this.same(mem!, 'read_graph', {}, 'mem', 1);
      case 'gatewayRestart':
        for (const c of this.clients) await c.close().catch(() => undefined);
        await this.gateway.close();
        await this.startGateway();
        return this.listsAgree();
    }
  }

  private rootOf(side: 'direct' | 'gated'): string {
    return join(side === 'direct' ? this.direct.root : this.gated.root, 'files');
  }

  /** fs tools take absolute paths: each side gets its own root, the observation hides it. */
  private async sameFs(
    tool: string,
    name: string,
    via: number,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const [a, b] = await this.pairFs(name, via, tool, extra);
    expect(b, `fs__${tool} ${name}`).toEqual(a);
  }

  private async pairFs(
    name: string,
    via: number,
    tool = 'read_text_file',
    extra: Record<string, unknown> = {},
  ) {
    const a = await this.observe(() =>
      this.direct.fs!.callTool({
        name: tool,
        arguments: { path: join(this.rootOf('direct'), name), ...extra },
      }),
    );
    const b = await this.observe(() =>
      this.clients[via]!.callTool({
        name: `fs__${tool}`,
        arguments: { path: join(this.rootOf('gated'), name), ...extra },
      }),
    );
    return [a, b] as const;
  }

  private closed = false;

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const c of this.clients) await c.close().catch(() => undefined);
    await this.gateway?.close();
    for (const c of [this.direct.mem, this.direct.fs, this.direct.fx])
      await c?.close().catch(() => undefined);
    await this.direct.fixture?.close();
    await this.gated.fixture?.close();
    rmSync(this.base, { recursive: true, force: true });
  }
}

/** Child processes of this test process running an MCP server package. */
function serverChildren(): string[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], {
    encoding: 'utf8',
  }).trim();
  return out === ''
    ? []
    : out.split('\n').filter((line) => /server-(memory|filesystem)/.test(line));
}

for (const mode of ['legacy', 'auto'] as const) {
  const revision = mode === 'legacy' ? '2025-11-25' : '2026-07-28';
  describe(`the gateway against direct upstreams (${revision} clients, seed ${SEED})`, () => {
    let world: World;
    let savedCache: string | undefined;
    beforeAll(async () => {
      world = new World(mode);
      savedCache = process.env.XDG_CACHE_HOME;
      // The gateway's tool cache file goes here, so a gateway restart starts from it.
      process.env.XDG_CACHE_HOME = join(world.base, 'cache');
      await world.start();
    }, 60_000);
    afterAll(async () => {
      await world.close();
      if (savedCache === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = savedCache;
    });

    it(
      'observes what a direct client observes, through faults',
      async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 12 }), async (steps) => {
            world.counts.sequences++;
            for (const step of steps) await world.apply(step);
          }),
          {
            seed: SEED,
            numRuns: RUNS,
            endOnFailure: true,
            ...(TIME_LIMIT_MS !== undefined
              ? { interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false }
              : {}),
          },
        );
        // Reported by the test run (and in the soak's output): how much was compared.
        console.log(
          `differential ${revision}: ${world.counts.sequences} sequences, ${world.counts.operations} operations`,
        );
      },
      SOAK ? TIME_LIMIT_MS! + 120_000 : 110_000,
    );

    it('leaves no upstream process behind once the gateway and the clients are closed', async () => {
      await world.close();
      // A stopped child may take a moment to exit after its pipes close.
      await vi.waitFor(() => expect(serverChildren().join('\n')).toBe(''), {
        timeout: 2_000,
        interval: 50,
      });
    }, 60_000);
  });
}
