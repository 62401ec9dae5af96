import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createQuickJSExecutor } from '@toolwire/executor';
import { createRegistry, type Registry } from '@toolwire/mcp/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeMode } from './code-mode.js';
import type { CodeMode } from './code-mode-types.js';

// End to end against the real npm MCP servers over stdio, through @toolwire/mcp's registry.
const require = createRequire(import.meta.url);
const serverBin = (name: string) => require.resolve(`@modelcontextprotocol/${name}/dist/index.js`);

const dir = mkdtempSync(path.join(tmpdir(), 'toolwire-codemode-'));
const executor = createQuickJSExecutor({ poolSize: 1 });
let registry: Registry;
let codeMode: CodeMode;

beforeAll(async () => {
  registry = createRegistry({
    config: {
      mcpServers: {
        memory: {
          command: process.execPath,
          args: [serverBin('server-memory')],
          env: { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') },
        },
        fs: { command: process.execPath, args: [serverBin('server-filesystem'), dir] },
        everything: { command: process.execPath, args: [serverBin('server-everything'), 'stdio'] },
      },
      nativeTools: [],
    },
  });
  await registry.start();
  codeMode = createCodeMode({ source: registry, executor, excludedTools: ['fs__read_media_file'] });
});

afterAll(async () => {
  await codeMode?.close();
  await registry?.close();
  await executor.close();
  rmSync(dir, { recursive: true, force: true });
});

function serverProcesses() {
  return registry.servers().map((server) => ({
    name: server.name,
    status: server.status,
    pid: server.pid,
    restarts: server.restarts,
  }));
}

describe('createCodeMode with an MCP registry', () => {
  it('gives one line per server in the description, from its instructions when it sent some', () => {
    const description = codeMode.executeCodeTool.description;
    const lines = description.split('\n').filter((line) => /^- \w+ \(\d+ tools?\)/.test(line));
    expect(lines.map((line) => line.split(' ')[1])).toEqual(['memory', 'fs', 'everything']);
    const sent = registry.servers().filter((server) => server.instructions);
    expect(sent.length).toBeGreaterThan(0);
    for (const server of sent) {
      // The first prose line (everything's instructions open with a markdown heading).
      const prose = server.instructions!.split('\n').find((l) => l.trim() && !l.startsWith('#'))!;
      const first = prose.trim().split(/[.!?](\s|$)/)[0]!;
      expect(lines.find((line) => line.startsWith(`- ${server.name} (`))).toContain(
        first.slice(0, 40),
      );
    }
  });

  it("declares the real servers' tools with their output types", () => {
    const text = codeMode.declarations.text;
    // Three memory tools answer with the graph and most filesystem tools with { content }: each
    // shape is declared once.
    expect(text).toContain(
      'type EntitiesRelationsOutput = { entities: Entity[]; relations: Relation[] };',
    );
    expect(text).toContain(
      'declare function memory__read_graph(input?: {}): Promise<EntitiesRelationsOutput>;',
    );
    expect(text).toContain('type ContentOutput = { content: string };');
    expect(text).toContain(
      'declare function fs__write_file(input: { path: string; content: string }): Promise<ContentOutput>;',
    );
    expect(text).not.toContain('fs__read_media_file');
    expect(codeMode.tools.map((t) => t.name)).toEqual(['execute_code', 'fs__read_media_file']);
  });

  it('makes many dependent calls to two servers in one script over one connection each', async () => {
    const before = serverProcesses();
    expect(before.every((server) => server.status === 'ok' && typeof server.pid === 'number')).toBe(
      true,
    );
    const file = path.join(dir, 'notes.txt');
    const result = await codeMode.run(`
const people = ['Ada', 'Grace', 'Edsger'];
await memory__create_entities({ entities: people.map((name) => ({ name, entityType: 'person', observations: [] })) });
for (let i = 0; i < 10; i++) {
  await memory__add_observations({ observations: [{ entityName: people[i % 3], contents: ['fact ' + i] }] });
}
await memory__create_relations({ relations: [{ from: 'Ada', to: 'Grace', relationType: 'inspired' }] });
const graph = await memory__read_graph();
const lines = graph.entities.map((e) => e.name + ': ' + e.observations.length).join('\\n');
await fs__write_file({ path: ${JSON.stringify(file)}, content: lines });
const back = await fs__read_text_file({ path: ${JSON.stringify(file)} });
const found = await memory__search_nodes({ query: 'Ada' });
return { written: back.content, relations: graph.relations.length, found: found.entities.map((e) => e.name) };`);
    expect(result.error).toBeUndefined();
    expect(result.value).toEqual({
      written: 'Ada: 4\nGrace: 3\nEdsger: 3',
      relations: 1,
      found: ['Ada'],
    });
    expect(result.toolCalls).toHaveLength(16);
    expect(result.toolCalls.every((call) => call.outcome === 'ok')).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('Ada: 4\nGrace: 3\nEdsger: 3');

    // A second run reuses the same server processes: nothing was spawned again.
    const second = await codeMode.run(
      `return (await memory__open_nodes({ names: ['Grace'] })).entities[0].observations;`,
    );
    expect(second.value).toEqual(['fact 1', 'fact 4', 'fact 7']);
    expect(serverProcesses()).toEqual(before);
    expect(before.every((server) => server.restarts === 0)).toBe(true);
  });

  it('calls tools whose names are not identifiers (everything__get-sum) by their mapped names', async () => {
    expect(codeMode.declarations.bindings).toContainEqual({
      identifier: 'everything__get_sum',
      toolName: 'everything__get-sum',
    });
    const result = await codeMode.run(
      `const [sum, weather] = await Promise.all([\n  everything__get_sum({ a: 19, b: 23 }),\n  tools.everything__get_structured_content({ location: 'Chicago' }),\n]);\nreturn { sum, temperature: typeof weather.temperature };`,
    );
    expect(result.error).toBeUndefined();
    expect(result.value).toMatchObject({ temperature: 'number' });
    expect(String((result.value as { sum: unknown }).sum)).toContain('42');
    expect(result.toolCalls.map((call) => call.name).sort()).toEqual([
      'everything__get-structured-content',
      'everything__get-sum',
    ]);
  });

  it('throws an MCP error result into the script, where it can be caught', async () => {
    const result = await codeMode.run(`
try {
  await fs__read_text_file({ path: '/definitely/not/allowed.txt' });
  return 'read';
} catch (error) {
  return (error as Error).message;
}`);
    expect(result.ok).toBe(true);
    expect(result.value).toMatch(/denied|outside allowed directories/i);
  });

  it('rejects bad arguments before they reach the server', async () => {
    const result = await codeMode.run(`return await memory__search_nodes({ query: 42 } as any);`);
    expect(result.error).toMatchObject({ kind: 'tool-failed', tool: 'memory__search_nodes' });
    expect(result.error!.message).toContain('/query');
    expect(result.toolCalls[0]).toMatchObject({
      outcome: 'error',
      error: { category: 'invalidArguments' },
    });
  });

  it('answers a wrong call with the full documented declaration of the tool, even from signatures', async () => {
    const lean = createCodeMode({
      source: registry,
      executor,
      declarations: { detail: 'signatures' },
    });
    try {
      expect(lean.executeCodeTool.description).not.toContain('Make line-based edits');
      const result = await lean.run(
        `const file = 'notes.txt';\nawait fs__edit_file({ path: file, edits: [{ old: 'a', newText: 'b' }] });`,
      );
      expect(result.error).toMatchObject({ kind: 'typecheck', line: 2 });
      const message = result.error!.message;
      expect(message).toMatch(/line 2, column \d+: .*'old' does not exist/);
      expect(message).toContain('Declarations of the tools on those lines:');
      expect(message).toContain('Make line-based edits to a text file.');
      expect(message).toContain('oldText: string; // Text to search for - must match exactly');
      expect(message).toContain('Preview changes using git-style diff format');
      expect(result.toolCalls).toEqual([]);
    } finally {
      await lean.close();
    }
  });
});
