import { createQuickJSExecutor } from '@toolwire/executor';
import { estimateTokens } from '@toolwire/schema';
import { afterAll, describe, expect, it } from 'vitest';
import { generateTools } from '../bench/generated-tools.js';
import { recordingSource, runSearchTasks, searchTasks } from '../bench/search-tasks.js';
import { createCodeMode } from './code-mode.js';
import type { SourceTool } from './tool-source.js';

const executor = createQuickJSExecutor({ poolSize: 1 });
afterAll(() => executor.close());

const tool = (
  name: string,
  description: string,
  parameters: string[] = [],
  source?: string,
): SourceTool => ({
  name,
  description,
  inputSchema: {
    type: 'object',
    properties: Object.fromEntries(parameters.map((p) => [p, { type: 'string' }])),
  },
  ...(source !== undefined ? { source } : {}),
});

const small = [
  tool('fs__read_text_file', 'Read the complete contents of a file as text.', ['path'], 'fs'),
  tool('fs__move_file', 'Move or rename files and directories.', ['source', 'destination'], 'fs'),
  tool(
    'fs__list_directory',
    'Get a detailed listing of all files and directories.',
    ['path'],
    'fs',
  ),
  tool(
    'memory__delete_entities',
    'Delete multiple entities from the knowledge graph.',
    ['entityNames'],
    'memory',
  ),
  tool(
    'memory__create_entities',
    'Create multiple new entities in the knowledge graph.',
    ['entities'],
    'memory',
  ),
  tool('hash', 'Compute a digest of some data.', ['data', 'algorithm']),
];
describe('search() in code mode', () => {
  it('returns name, identifier, one-line description and signature, and is not a tool call', async () => {
    const source = recordingSource([
      ...small,
      tool('get-weather', 'Get the weather for a city. '.repeat(20), ['city']),
    ]);
    const mode = createCodeMode({ source, executor });
    try {
      const result = await mode.run(
        "const hits = await search('weather in a city', { limit: 1 });\nreturn hits;",
      );
      expect(result.error).toBeUndefined();
      const [hit] = result.value as Array<Record<string, string>>;
      expect(result.value).toHaveLength(1);
      expect(hit).toMatchObject({
        name: 'get-weather',
        identifier: 'get_weather',
        signature: 'declare function get_weather(input?: { city?: string }): Promise<unknown>;',
      });
      expect(hit!.description!.length).toBeLessThan(200);
      expect(result.toolCalls).toEqual([]);
      expect(mode.search('weather')[0]!.identifier).toBe('get_weather');
      // Without options: the default limit.
      const all = await mode.run("return (await search('file')).length;");
      expect(all.value).toBe(3);
      const bad = await mode.run("return await search('file', { limit: -1 });", {
        typecheck: 'off',
      });
      expect(bad.error!.message).toMatch(/limit must be a positive integer/);
    } finally {
      await mode.close();
    }
  });

  it("keeps the code's own search when it declares one, on the lines it wrote", async () => {
    const mode = createCodeMode({ source: recordingSource(small), executor });
    try {
      const result = await mode.run(
        'const search = (q: string) => q.length;\nreturn search("abc");',
      );
      expect(result.value).toBe(3);
      const destructured = await mode.run(
        'const { search } = { search: (q: string) => q + "!" };\nreturn search("hi");',
      );
      expect(destructured.value).toBe('hi!');
      // A `search` inside a function is a local: the sandbox's one is still there.
      const nested = await mode.run(
        "const f = (search: number) => search + 1;\nreturn [f(1), (await search('file')).length];",
      );
      expect(nested.value).toEqual([2, 3]);
      const thrown = await mode.run("await search('file');\nthrow new Error('here');");
      expect(thrown.error).toMatchObject({ kind: 'runtime', line: 2 });
    } finally {
      await mode.close();
    }
  });
});

describe('the execute_code description at scale', () => {
  it('stays within its budget at any tool count and keeps the descriptions of the tools it lists', async () => {
    for (const count of [20, 53, 200, 500]) {
      const tools = generateTools(count);
      const mode = createCodeMode({ source: recordingSource(tools), executor });
      const description = mode.executeCodeTool.description;
      expect(estimateTokens(description)).toBeLessThanOrEqual(1300);
      expect(mode.listedTools.length).toBeGreaterThan(0);
      for (const name of mode.listedTools) {
        const listed = tools.find((t) => t.name === name)!;
        expect(description).toContain(`/** ${(listed.description ?? '').slice(0, 40)}`);
      }
      // One line per server, and search() advertised when tools are left out.
      expect(description).toContain('- github (');
      if (mode.listedTools.length < count) expect(description).toContain('await search(');
      await mode.close();
    }
  });

  it('shows only type names the code is checked against, so code may use them', async () => {
    for (const count of [53, 500]) {
      const mode = createCodeMode({ source: recordingSource(generateTools(count)), executor });
      try {
        const description = mode.executeCodeTool.description;
        const names = [...description.matchAll(/^type (\w+) =/gm)].map((match) => match[1]!);
        expect(names.length).toBeGreaterThan(0);
        for (const name of names) expect(mode.declarations.text).toContain(`type ${name} =`);
        const script = names.map((name, i) => `const v${i}: ${name} | undefined = undefined;`);
        const result = await mode.run(`${script.join('\n')}\nreturn ${names.length};`);
        expect(result.diagnostics).toEqual([]);
        expect(result.value).toBe(names.length);
      } finally {
        await mode.close();
      }
    }
  });

  it('lists pinned tools first, then every server in turn', async () => {
    const tools = generateTools(500);
    const mode = createCodeMode({
      source: recordingSource(tools),
      executor,
      pinnedTools: ['stripe__create_refund', 'not_a_tool'],
    });
    try {
      expect(mode.listedTools[0]).toBe('stripe__create_refund');
      const servers = new Set(mode.listedTools.map((name) => name.split('__')[0]));
      expect(servers.size).toBe(mode.listedTools.length);
      expect(mode.listedTools).toContain('github__list_issues');
    } finally {
      await mode.close();
    }
  });

  it('lets a scripted model that knows only the task find and call the right tool for 20 of 20 tasks', async () => {
    const source = recordingSource(generateTools(500));
    const mode = createCodeMode({ source, executor });
    try {
      const outcomes = await runSearchTasks(mode);
      const failed = outcomes
        .filter((outcome) => !outcome.ok)
        .map((o) => `${o.task.expected} ← ${o.called ?? o.error}`);
      expect(failed).toEqual([]);
      expect(outcomes).toHaveLength(searchTasks.length);
      // Each task was one run that made exactly the one expected call, with the task's arguments.
      expect(source.calls.map((call) => call.name)).toEqual(searchTasks.map((t) => t.expected));
      expect(source.calls[0]!.args).toEqual(searchTasks[0]!.args);
    } finally {
      await mode.close();
    }
  });
});
