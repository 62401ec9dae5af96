import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  fixtureStdioConfig,
  startFixtureHttpServer,
  type FixtureEvent,
} from '@toolwire/testing/mcp';
import {
  CancelledError,
  InvalidToolArgumentsError,
  NoSuchToolError,
  TimeoutError,
  executeToolCalls,
  toolResultFromMcp,
} from '@toolwire/schema';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServerUnavailableError } from './errors.js';
import { createRegistry, type CreateRegistryOptions } from './node-registry.js';
import type { Registry } from './registry-types.js';
import { loadConfig } from '@toolwire/config/node';

const dir = mkdtempSync(join(tmpdir(), 'toolwire-registry-'));
let counter = 0;
const open: Registry[] = [];
const cleanups: Array<() => Promise<void>> = [];

function quietLogger() {
  const lines: string[] = [];
  return { lines, warn: (m: string) => lines.push(m), info: (m: string) => lines.push(m) };
}

function registryWith(
  options: Partial<CreateRegistryOptions> & { config: CreateRegistryOptions['config'] },
): Registry & { log: string[] } {
  const logger = quietLogger();
  const registry = createRegistry({
    connectTimeoutMs: 15_000,
    backoff: { initialMs: 50, maxMs: 200 },
    logger,
    ...options,
  });
  open.push(registry);
  return Object.assign(registry, { log: logger.lines });
}

function logFile(): string {
  return join(dir, `events-${process.pid}-${counter++}.jsonl`);
}

function readEvents(path: string): FixtureEvent[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as FixtureEvent);
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error(`timed out waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: 20 },
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((registry) => registry.close()));
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

describe('createRegistry', () => {
  it('aggregates native tools with every page of a stdio server and an HTTP server', async () => {
    const http = await startFixtureHttpServer({ pageSize: 3 });
    cleanups.push(http.close);
    const registry = registryWith({
      config: { mcpServers: { fx: fixtureStdioConfig({ pageSize: 2 }), web: { url: http.url } } },
    });
    await registry.start();
    const names = registry.listTools().map((tool) => tool.name);
    expect(names.slice(0, 3)).toEqual(['hash', 'time', 'calculate']);
    const fixtureTools = [
      'echo',
      'add',
      'slow',
      'crash',
      'fail',
      'content',
      'bad_structured',
      'change_tools',
    ];
    expect(names).toEqual(
      expect.arrayContaining([
        ...fixtureTools.map((t) => `fx__${t}`),
        ...fixtureTools.map((t) => `web__${t}`),
      ]),
    );
    expect(registry.listTools().every((tool) => tool.status === 'ok')).toBe(true);
    const servers = registry.servers();
    expect(servers.find((s) => s.name === 'fx')).toMatchObject({
      status: 'ok',
      tools: 8,
      transport: 'stdio',
      protocolVersion: '2025-11-25',
    });
    // The HTTP fixture speaks 2026-07-28: the client negotiated it through server/discover.
    expect(servers.find((s) => s.name === 'web')).toMatchObject({
      status: 'ok',
      tools: 8,
      transport: 'http',
      protocolVersion: '2026-07-28',
    });
    expect(registry.resolve('web__add')).toEqual({ source: 'web', originalName: 'add' });
    expect(await registry.callTool('web__add', { a: 2, b: 3 })).toMatchObject({
      structuredContent: { sum: 5 },
    });
    expect(await registry.callTool('fx__echo', '{"text":"hi"}')).toMatchObject({
      content: [{ type: 'text', text: 'echo: hi' }],
    });
    expect(await registry.callTool('calculate', { expression: '6*7' })).toMatchObject({
      structuredContent: { result: 42 },
    });
  });

  it('speaks 2025-11-25 to an HTTP server when told to (protocol: legacy)', async () => {
    const http = await startFixtureHttpServer();
    cleanups.push(http.close);
    const registry = registryWith({
      config: { mcpServers: { web: { url: http.url, protocol: 'legacy' } } },
    });
    await registry.start();
    expect(registry.servers()[0]).toMatchObject({ status: 'ok', protocolVersion: '2025-11-25' });
    expect(await registry.callTool('web__echo', { text: 'x' })).toMatchObject({
      content: [{ text: 'echo: x' }],
    });
  });

  it('keeps going when servers fail, reporting status and reason, and lists disabled servers', async () => {
    const registry = registryWith({
      config: {
        mcpServers: {
          good: fixtureStdioConfig(),
          missing: { command: 'toolwire-no-such-command-xyz' },
          crashing: fixtureStdioConfig({ crashOnStart: 'fatal: cannot open database' }),
          refused: { url: 'http://127.0.0.1:9/mcp' },
          off: { command: 'x', enabled: false },
        },
      },
    });
    await registry.start();
    const byName = Object.fromEntries(registry.servers().map((s) => [s.name, s]));
    expect(byName.good?.status).toBe('ok');
    expect(byName.missing).toMatchObject({
      status: 'down',
      reason: 'command not found: toolwire-no-such-command-xyz',
    });
    expect(byName.crashing?.status).toBe('down');
    expect(byName.crashing?.reason).toContain('fatal: cannot open database');
    expect(byName.refused?.status).toBe('down');
    expect(byName.off).toMatchObject({ status: 'disabled', tools: 0 });
    expect(registry.listTools().some((tool) => tool.source === 'good')).toBe(true);
  });

  it('keeps a failing server down with its reason through every retry (never "connecting")', async () => {
    const registry = registryWith({
      config: {
        mcpServers: {
          crashing: fixtureStdioConfig({ crashOnStart: 'fatal: cannot open database' }),
        },
      },
    });
    // Every status it passes through, as the registry announces it, across several retries.
    const crashing = () => registry.servers().find((s) => s.name === 'crashing')!;
    const seen = new Set<string>();
    registry.onToolsChanged(({ server }) => {
      if (server !== 'crashing') return;
      seen.add(`${crashing().status}: ${crashing().reason ?? ''}`);
    });
    await registry.start();
    seen.add(`${crashing().status}: ${crashing().reason ?? ''}`);
    await waitFor(() => crashing().restarts >= 3, 'three retries');
    expect([...seen].every((line) => line.startsWith('down: '))).toBe(true);
    expect([...seen].some((line) => line.includes('fatal: cannot open database'))).toBe(true);
  });

  it('validates arguments before sending: the server never sees bad input', async () => {
    const events = logFile();
    const registry = registryWith({
      config: { mcpServers: { fx: fixtureStdioConfig({ logFile: events }) } },
    });
    await registry.start();
    const error = await registry.callTool('fx__add', { a: 'two' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidToolArgumentsError);
    expect((error as Error).message).toContain('/a: must be number');
    expect((error as Error).message).toContain('/b: is required but missing');
    await registry.callTool('fx__echo', { text: 'ok' });
    expect(readEvents(events).map((e) => e.tool)).toEqual(['echo']);
  });

  it('answers an unknown name with NoSuchToolError naming the nearest tools', async () => {
    const registry = registryWith({ config: { mcpServers: { fx: fixtureStdioConfig() } } });
    await registry.start();
    const error = await registry.callTool('fx__ech', { text: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoSuchToolError);
    expect((error as Error).message).toContain('did you mean "fx__echo"');
  });

  it('resets the per-call timeout on progress and times out a silent call', async () => {
    const events = logFile();
    const registry = registryWith({
      config: { mcpServers: { fx: fixtureStdioConfig({ logFile: events }) } },
    });
    await registry.start();
    const progress: number[] = [];
    const result = await registry.callTool(
      'fx__slow',
      { ms: 2400, steps: 12 },
      { timeoutMs: 1000, onProgress: (p) => progress.push(p.progress) },
    );
    expect(result.isError).toBeFalsy();
    // Each 200 ms step reset the 1 s timer; the call took far longer than that in total.
    expect(progress.length).toBeGreaterThanOrEqual(10);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    // Without a progress listener no progress token is sent, so nothing resets the timer.
    await expect(
      registry.callTool('fx__slow', { ms: 3000, steps: 1 }, { timeoutMs: 300 }),
    ).rejects.toBeInstanceOf(TimeoutError);
    // A timed-out call is cancelled on the server too, not left running.
    await waitFor(
      () => readEvents(events).some((e) => e.type === 'cancelled'),
      'the server to see the timeout as a cancellation',
    );
  });

  it('forwards cancellation to the server as notifications/cancelled', async () => {
    const events = logFile();
    const registry = registryWith({
      config: { mcpServers: { fx: fixtureStdioConfig({ logFile: events }) } },
    });
    await registry.start();
    const controller = new AbortController();
    const call = registry.callTool(
      'fx__slow',
      { ms: 10_000, steps: 100 },
      { signal: controller.signal, onProgress: () => undefined },
    );
    await waitFor(() => readEvents(events).some((e) => e.type === 'call'), 'the call to arrive');
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(CancelledError);
    await waitFor(
      () => readEvents(events).some((e) => e.type === 'cancelled'),
      'the server to see the cancellation',
    );
  });

  it('cancels a 2026-07-28 HTTP call on the server too', async () => {
    // (The fixture's 2025-era HTTP leg is stateless, so it cannot route a cancellation to an
    // in-flight request; stdio covers notifications/cancelled for that era.)
    const http = await startFixtureHttpServer();
    cleanups.push(http.close);
    const registry = registryWith({ config: { mcpServers: { web: { url: http.url } } } });
    await registry.start();
    const controller = new AbortController();
    const call = registry.callTool(
      'web__slow',
      { ms: 10_000, steps: 100 },
      { signal: controller.signal, onProgress: () => undefined },
    );
    await waitFor(
      () => http.events.some((e) => e.type === 'call' && e.tool === 'slow'),
      'the call to arrive',
    );
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(CancelledError);
    await waitFor(
      () => http.events.some((e) => e.type === 'cancelled'),
      'the server to see the cancellation',
    );
  });

  it('speaks 2025-11-25 with sessions over HTTP: session header, cancellation and list_changed', async () => {
    const http = await startFixtureHttpServer();
    cleanups.push(http.close);
    const registry = registryWith({
      config: { mcpServers: { web: { url: http.url, protocol: 'legacy' } } },
      refreshIntervalMs: 0,
    });
    await registry.start();
    expect(registry.servers()[0]?.protocolVersion).toBe('2025-11-25');
    await registry.callTool('web__echo', { text: 'x' });
    expect(http.requests.at(-1)?.headers['mcp-session-id']).toEqual(expect.any(String));
    const controller = new AbortController();
    const call = registry.callTool(
      'web__slow',
      { ms: 10_000, steps: 100 },
      { signal: controller.signal, onProgress: () => undefined },
    );
    await waitFor(
      () => http.events.some((e) => e.type === 'call' && e.tool === 'slow'),
      'the call to arrive',
    );
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(CancelledError);
    await waitFor(
      () => http.events.some((e) => e.type === 'cancelled'),
      'the server to see notifications/cancelled',
    );
    await registry.callTool('web__change_tools', { add: 'sessionful' });
    await waitFor(
      () => registry.resolve('web__sessionful') !== undefined,
      'list_changed on the session stream',
    );
  });

  it('normalises results: mixed content, isError, and structured content checked against the output schema', async () => {
    const registry = registryWith({ config: { mcpServers: { fx: fixtureStdioConfig() } } });
    await registry.start();
    const mixed = toolResultFromMcp(
      { id: 'c1', name: 'fx__content' },
      await registry.callTool('fx__content', {}),
    );
    expect(mixed.content.map((part) => part.type)).toEqual([
      'text',
      'image',
      'resource',
      'resource',
    ]);
    expect(mixed.content[1]).toMatchObject({ type: 'image', mediaType: 'image/png' });
    expect(mixed.content[2]).toMatchObject({ uri: 'fixture://note.txt', text: 'embedded note' });
    const failed = toolResultFromMcp(
      { id: 'c2', name: 'fx__fail' },
      await registry.callTool('fx__fail', { message: 'disk full' }),
    );
    expect(failed).toMatchObject({ isError: true, error: { message: 'disk full' } });
    const bad = await registry.callTool('fx__bad_structured', {});
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain('does not match its output schema');
  });

  it('leaves out tools with unusable schemas and reports them', async () => {
    const registry = registryWith({
      config: {
        mcpServers: {
          fx: fixtureStdioConfig({
            tools: ['echo'],
            extraTools: [
              { name: 'not_object', inputSchema: { type: 'string' } },
              {
                name: 'broken_ref',
                inputSchema: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
              },
              { name: 'no_schema', inputSchema: null },
              {
                name: 'fine.dotted name',
                description: 'A tool whose name needs rewriting.',
                inputSchema: { type: 'object' },
              },
            ],
          }),
        },
      },
    });
    await registry.start();
    expect(
      registry
        .listTools()
        .filter((t) => t.source === 'fx')
        .map((t) => t.name),
    ).toEqual(['fx__echo', 'fx__fine_dotted_name']);
    expect(registry.servers()[0]?.rejectedTools?.map((r) => r.name)).toEqual([
      'not_object',
      'broken_ref',
      'no_schema',
    ]);
    expect(registry.resolve('fx__fine_dotted_name')).toEqual({
      source: 'fx',
      originalName: 'fine.dotted name',
    });
    expect(await registry.callTool('fx__fine_dotted_name', { q: 1 })).toMatchObject({
      content: [{ text: '{"q":1}' }],
    });
  });

  it('refreshes on list_changed and compares whole definitions, annotations included', async () => {
    const registry = registryWith({ config: { mcpServers: { fx: fixtureStdioConfig() } } });
    await registry.start();
    const events: string[] = [];
    registry.onToolsChanged((event) => events.push(event.server));
    const kinds: string[] = [];
    registry.onListChanged((event) => kinds.push(event.kind));
    await registry.callTool('fx__change_tools', { add: 'extra' });
    await waitFor(() => registry.resolve('fx__extra') !== undefined, 'the added tool');
    expect(events).toContain('fx');
    expect(kinds).toContain('tools');
    await registry.callTool('fx__change_tools', { destructiveEcho: true });
    await waitFor(
      () =>
        registry.listTools().find((t) => t.name === 'fx__echo')?.annotations?.destructiveHint ===
        true,
      'the annotation change',
    );
    expect(registry.log.some((line) => line.includes('annotations of tool "echo" changed'))).toBe(
      true,
    );
  });

  it('passes on prompts and resources list_changed without touching the tool list', async () => {
    const registry = registryWith({
      config: { mcpServers: { fx: fixtureStdioConfig({ tools: ['echo', 'change_lists'] }) } },
    });
    await registry.start();
    const toolEvents: string[] = [];
    const listEvents: string[] = [];
    registry.onToolsChanged((event) => toolEvents.push(event.server));
    registry.onListChanged((event) => listEvents.push(`${event.server}:${event.kind}`));
    await registry.callTool('fx__change_lists', { prompts: true, resources: true });
    await waitFor(() => listEvents.length >= 2, 'both list_changed notifications');
    expect(listEvents.sort()).toEqual(['fx:prompts', 'fx:resources']);
    expect(toolEvents).toEqual([]);
  });

  it('refreshes on list_changed over 2026-07-28 HTTP (subscriptions/listen)', async () => {
    const http = await startFixtureHttpServer();
    cleanups.push(http.close);
    const registry = registryWith({
      config: { mcpServers: { web: { url: http.url } } },
      refreshIntervalMs: 0,
    });
    await registry.start();
    expect(registry.servers()[0]?.protocolVersion).toBe('2026-07-28');
    await registry.callTool('web__change_tools', { add: 'pushed' });
    await waitFor(() => registry.resolve('web__pushed') !== undefined, 'the pushed list change');
  });

  it('refreshes on a TTL when the server cannot notify (stateless HTTP)', async () => {
    const http = await startFixtureHttpServer();
    cleanups.push(http.close);
    const registry = registryWith({
      config: { mcpServers: { web: { url: http.url } } },
      refreshIntervalMs: 100,
    });
    await registry.start();
    await registry.callTool('web__change_tools', { add: 'late' });
    await waitFor(() => registry.resolve('web__late') !== undefined, 'the TTL refresh');
  });

  it('restarts a stdio server that dies, shows the status, and kills the process group on close', async () => {
    const registry = registryWith({ config: { mcpServers: { fx: fixtureStdioConfig() } } });
    await registry.start();
    const firstPid = registry.servers()[0]!.pid!;
    const error = await registry.callTool('fx__crash', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerUnavailableError);
    await waitFor(
      () => registry.servers()[0]!.status === 'ok' && registry.servers()[0]!.pid !== firstPid,
      'the restart',
    );
    expect(registry.servers()[0]!.restarts).toBeGreaterThanOrEqual(1);
    expect(alive(firstPid)).toBe(false);
    const pid = registry.servers()[0]!.pid!;
    expect(alive(pid)).toBe(true);
    await registry.close();
    expect(alive(pid)).toBe(false);
  });

  it('marks the tools of a dead server unavailable and answers calls with server_unavailable', async () => {
    const registry = registryWith({
      config: { mcpServers: { fx: fixtureStdioConfig({ exitAfterMs: 1500 }) } },
      backoff: { initialMs: 60_000, maxMs: 60_000 },
    });
    await registry.start();
    await waitFor(() => registry.servers()[0]!.status === 'down', 'the exit');
    expect(registry.servers()[0]!.reason).toContain('exited (code 4)');
    expect(
      registry
        .listTools()
        .filter((t) => t.source === 'fx')
        .every((t) => t.status === 'unavailable'),
    ).toBe(true);
    const error = (await registry
      .callTool('fx__echo', { text: 'x' })
      .catch((e: unknown) => e)) as ServerUnavailableError;
    expect(error.code).toBe('server_unavailable');
    expect(error.message).toContain('fx');
  });

  it('reconnects to a remote that dropped', async () => {
    const http = await startFixtureHttpServer();
    const registry = registryWith({ config: { mcpServers: { web: { url: http.url } } } });
    await registry.start();
    await http.close();
    await expect(registry.callTool('web__echo', { text: 'x' })).rejects.toBeInstanceOf(
      ServerUnavailableError,
    );
    expect(registry.servers()[0]!.status).not.toBe('ok');
    const again = await startFixtureHttpServer({ port: http.port });
    cleanups.push(again.close);
    await waitFor(() => registry.servers()[0]!.status === 'ok', 'the reconnect');
    expect(await registry.callTool('web__echo', { text: 'back' })).toMatchObject({
      content: [{ text: 'echo: back' }],
    });
  });

  it('persists last known tools so a restart with the server down still lists them', async () => {
    const cacheFile = join(dir, `cache-${counter++}.json`);
    const first = registryWith({ config: { mcpServers: { fx: fixtureStdioConfig() } }, cacheFile });
    await first.start();
    await first.close();
    const down = fixtureStdioConfig({ crashOnStart: 'upstream database offline' });
    const second = registryWith({
      config: { mcpServers: { fx: down } },
      cacheFile,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
    });
    await second.start();
    expect(second.servers()[0]).toMatchObject({ status: 'down', tools: 8 });
    expect(second.listTools().find((t) => t.name === 'fx__add')).toMatchObject({
      status: 'unavailable',
      outputSchema: { required: ['sum'] },
    });
    await expect(second.callTool('fx__add', { a: 1, b: 2 })).rejects.toThrow(
      /unavailable.*upstream database offline/,
    );
  });

  it('runs through executeToolCalls as schema-level tools (tools mode)', async () => {
    const registry = registryWith({ config: { mcpServers: { fx: fixtureStdioConfig() } } });
    await registry.start();
    const tools = registry.asTools();
    const results = await executeToolCalls(
      [
        { id: 'a', name: 'fx__add', arguments: '{"a":1,"b":2}' },
        { id: 'b', name: 'hash', arguments: { data: 'x', algorithm: 'md5' } },
        { id: 'c', name: 'fx__fail', arguments: {} },
      ],
      tools,
    );
    expect(results[0]).toMatchObject({ isError: false, structuredContent: { sum: 3 } });
    expect(results[1]).toMatchObject({
      isError: false,
      structuredContent: { result: '9dd4e461268c8034f5c8564e155c67a6' },
    });
    expect(results[2]?.isError).toBe(true);
  });

  it('resolves collisions by priority without failing and routes both tools', async () => {
    const registry = registryWith({
      config: {
        namespace: { strategy: 'flat', aliases: { 'b/add': 'sum_numbers' } },
        mcpServers: {
          a: fixtureStdioConfig({ tools: ['echo', 'add'] }),
          b: {
            ...fixtureStdioConfig({
              tools: ['echo', 'add'],
              extraTools: [
                {
                  name: 'hash',
                  description: 'A server tool that collides with a native one.',
                  inputSchema: { type: 'object' },
                },
              ],
            }),
            priority: 10,
          },
        },
      },
    });
    await registry.start();
    const names = registry.listTools().map((t) => `${t.name}<-${t.source}/${t.originalName}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'hash<-native/hash',
        'b__hash<-b/hash',
        'echo<-b/echo',
        'a__echo<-a/echo',
        'add<-a/add',
        'sum_numbers<-b/add',
      ]),
    );
    expect(
      registry
        .warnings()
        .some((w) => w.includes('collision on "echo"') && w.includes('server "b" keeps it')),
    ).toBe(true);
    expect(await registry.callTool('a__echo', { text: 'from a' })).toMatchObject({
      content: [{ text: 'echo: from a' }],
    });
    expect(await registry.callTool('sum_numbers', { a: 1, b: 1 })).toMatchObject({
      structuredContent: { sum: 2 },
    });
  });

  it('connects lazily on first use, serving cached tools until then', async () => {
    const cacheFile = join(dir, `cache-${counter++}.json`);
    const warm = registryWith({ config: { mcpServers: { fx: fixtureStdioConfig() } }, cacheFile });
    await warm.start();
    await warm.close();
    const registry = registryWith({
      config: { mcpServers: { fx: fixtureStdioConfig() } },
      cacheFile,
      lazy: true,
    });
    await registry.start();
    expect(registry.servers()[0]).toMatchObject({ status: 'idle', tools: 8 });
    expect(registry.servers()[0]!.pid).toBeUndefined();
    expect(registry.listTools().find((t) => t.name === 'fx__echo')?.status).toBe('stale');
    expect(await registry.callTool('fx__echo', { text: 'wake up' })).toMatchObject({
      content: [{ text: 'echo: wake up' }],
    });
    expect(registry.servers()[0]).toMatchObject({ status: 'ok' });
    expect(registry.snapshot().servers[0]?.status).toBe('ok');
  });

  it('sends configured headers (with ${VAR} expanded by loadConfig) to a remote server', async () => {
    const http = await startFixtureHttpServer();
    cleanups.push(http.close);
    const config = loadConfig(
      {
        mcpServers: {
          web: {
            url: http.url,
            headers: { Authorization: 'Bearer ${FIXTURE_TOKEN}', 'X-Team': '${TEAM:-tools}' },
          },
        },
      },
      { env: { FIXTURE_TOKEN: 's3cret' } },
    );
    const registry = registryWith({ config });
    await registry.start();
    await registry.callTool('web__echo', { text: 'x' });
    expect(http.requests.length).toBeGreaterThan(1);
    for (const request of http.requests) {
      expect(request.headers.authorization).toBe('Bearer s3cret');
      expect(request.headers['x-team']).toBe('tools');
    }
  });

  it('gives up on a server that does not connect within its timeout, without holding up the others', async () => {
    const registry = registryWith({
      config: {
        mcpServers: {
          // Its own limit: the other server keeps the registry's (15 s), which a loaded machine
          // needs to start a process and list its tools.
          slow: { ...fixtureStdioConfig({ startupDelayMs: 10_000 }), connectTimeoutMs: 1500 },
          fast: fixtureStdioConfig(),
        },
      },
      backoff: { initialMs: 60_000, maxMs: 60_000 },
    });
    await registry.start();
    const byName = Object.fromEntries(registry.servers().map((s) => [s.name, s]));
    expect(byName.fast?.status).toBe('ok');
    expect(byName.slow).toMatchObject({
      status: 'down',
      reason: expect.stringContaining('connect timed out after 1500 ms'),
    });
  });

  it('kills the whole process group on close, grandchildren included', async () => {
    const pidFile = join(dir, `grandchild-${counter++}.pid`);
    const fixture = fixtureStdioConfig();
    // A wrapper shell that leaves a grandchild behind, like `npx` or `sh -c` launchers do.
    const registry = registryWith({
      config: {
        mcpServers: {
          wrapped: {
            command: '/bin/sh',
            args: [
              '-c',
              `sleep 600 & echo $! > ${pidFile}; exec "$0" "$@"`,
              fixture.command,
              ...fixture.args,
            ],
            env: fixture.env,
          },
        },
      },
    });
    await registry.start();
    expect(registry.servers()[0]?.status).toBe('ok');
    const grandchild = Number(readFileSync(pidFile, 'utf8').trim());
    expect(alive(grandchild)).toBe(true);
    await registry.close();
    await waitFor(() => !alive(grandchild), 'the grandchild to die', 5000);
  });

  it('leaves no process behind when closed in the middle of connecting', async () => {
    const registry = registryWith({
      config: { mcpServers: { slow: fixtureStdioConfig({ startupDelayMs: 10_000 }) } },
    });
    const starting = registry.start();
    await waitFor(() => registry.servers()[0]?.pid !== undefined, 'the spawn');
    const pid = registry.servers()[0]!.pid!;
    await registry.close();
    await starting;
    expect(alive(pid)).toBe(false);
    expect(registry.servers()[0]?.pid).toBeUndefined();
  });

  it('marks a server stale when a refresh fails, keeping its tools callable', async () => {
    const registry = registryWith({
      config: { mcpServers: { fx: fixtureStdioConfig({ listFailsAfter: 1 }) } },
    });
    await registry.start();
    await registry.refresh('fx');
    expect(registry.servers()[0]).toMatchObject({
      status: 'stale',
      reason: expect.stringContaining('failing on purpose'),
    });
    expect(registry.listTools().find((t) => t.name === 'fx__echo')?.status).toBe('stale');
    expect(await registry.callTool('fx__echo', { text: 'still here' })).toMatchObject({
      content: [{ text: 'echo: still here' }],
    });
  });

  it('filters server tools with include and exclude globs', async () => {
    const registry = registryWith({
      config: {
        mcpServers: {
          fx: { ...fixtureStdioConfig(), include: ['e*', 'a?d', 'slow'], exclude: ['slow'] },
        },
      },
      nativeTools: [],
    });
    await registry.start();
    expect(registry.listTools().map((t) => t.name)).toEqual(['fx__echo', 'fx__add']);
  });

  it('matches include and exclude with the same globs as policy ({a,b}_* braces, [ab] classes)', async () => {
    const registry = registryWith({
      config: {
        mcpServers: {
          fx: {
            ...fixtureStdioConfig(),
            include: ['{echo,add}', '[cf]*'],
            exclude: ['c[r]ash'],
          },
        },
      },
      nativeTools: [],
    });
    await registry.start();
    expect(registry.listTools().map((t) => t.name)).toEqual([
      'fx__echo',
      'fx__add',
      'fx__fail',
      'fx__content',
      'fx__change_tools',
    ]);
  });
});
