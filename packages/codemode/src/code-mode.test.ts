import { createQuickJSExecutor } from '@toolwire/executor';
import {
  defineTool,
  getSchemaValidator,
  ToolExecutionError,
  type AnyTool,
  type ToolContentOutput,
} from '@toolwire/schema';
import { afterAll, describe, expect, it } from 'vitest';
import { createCodeMode, createCodeModeTools, runCode } from './code-mode.js';
import type { CodeModeOptions } from './code-mode-types.js';
import type { CodeModeToolSource } from './tool-source.js';

const executor = createQuickJSExecutor({ poolSize: 1 });
afterAll(() => executor.close());

const calls: string[] = [];
const getCity = defineTool({
  name: 'get_city',
  description: 'Get the current city location',
  inputSchema: { type: 'object', properties: {} },
  outputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: () => {
    calls.push('get_city');
    return { city: 'New York' };
  },
});
const getWeather = defineTool(
  {
    name: 'get-weather',
    description: 'Get current weather data for a city',
    inputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      },
      required: ['city', 'unit'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { temperature: { type: 'number' } },
      required: ['temperature'],
    },
    execute: (args) => {
      const { city, unit } = args as { city: string; unit: string };
      calls.push(`get-weather ${city} ${unit}`);
      return { temperature: unit === 'celsius' ? 30 : 86 };
    },
  },
  { mode: 'lenient' },
);
const slashTool = defineTool(
  {
    name: 'a.b/c',
    description: 'A tool whose name is not an identifier',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    execute: (args) => `n=${(args as { n: number }).n}`,
  },
  { mode: 'lenient', namePattern: /.*/ },
);
const failing = defineTool({
  name: 'fail_always',
  description: 'Always fails with a permission error',
  inputSchema: { type: 'object', properties: {} },
  execute: () => {
    throw new ToolExecutionError({
      category: 'permissionDenied',
      message: 'no access to the vault',
    });
  },
});
const screenshot = defineTool({
  name: 'take_screenshot',
  description: 'Returns an image of the screen',
  inputSchema: { type: 'object', properties: {} },
  execute: () => ({
    toolContent: true,
    parts: [{ type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' }],
  }),
});
const tools: AnyTool[] = [getCity, getWeather, slashTool, failing, screenshot];

function codeMode(options: Partial<CodeModeOptions> = {}) {
  return createCodeMode({ source: tools, executor, ...options });
}

async function execute(tool: AnyTool, args: unknown): Promise<ToolContentOutput> {
  return (await tool.execute!(args, {
    toolCallId: 'call_1',
    signal: new AbortController().signal,
  })) as ToolContentOutput;
}

describe('createCodeMode', () => {
  it('gives the model one execute_code tool that declares every tool as a typed function', () => {
    const { tools: modelTools, executeCodeTool } = codeMode();
    expect(modelTools.map((t) => t.name)).toEqual(['execute_code']);
    expect(executeCodeTool.inputSchema).toMatchObject({ required: ['code'] });
    expect(executeCodeTool.description).toContain(
      "declare function get_weather(input: { city: string; unit: 'celsius' | 'fahrenheit' }): Promise<{ temperature: number }>;",
    );
    expect(executeCodeTool.description).toContain(
      'declare function a_b_c(input: { n: number }): Promise<unknown>;',
    );
  });

  it('runs a chain of dependent calls in one step, with names that are not identifiers', async () => {
    calls.length = 0;
    const result = await codeMode().run(`
const { city } = await get_city();
const f = await get_weather({ city, unit: 'fahrenheit' });
const c = await tools.get_weather({ city, unit: 'celsius' });
const label = await a_b_c({ n: c.temperature });
console.log('city is', city);
return { city, f: f.temperature, c: c.temperature, label };`);
    expect(result.error).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(result.value).toEqual({ city: 'New York', f: 86, c: 30, label: 'n=30' });
    expect(result.logs).toEqual([{ level: 'log', message: 'city is New York' }]);
    expect(result.toolCalls.map((call) => call.name)).toEqual([
      'get_city',
      'get-weather',
      'get-weather',
      'a.b/c',
    ]);
    expect(calls).toEqual([
      'get_city',
      'get-weather New York fahrenheit',
      'get-weather New York celsius',
    ]);
  });

  it('accepts an async arrow function in a markdown fence', async () => {
    const result = await codeMode().run(
      '```ts\nasync () => {\n  const r = await get_city();\n  return r.city.toUpperCase();\n}\n```',
    );
    expect(result).toMatchObject({ ok: true, value: 'NEW YORK' });
  });

  it('refuses to run code with type errors by default and says where they are', async () => {
    calls.length = 0;
    const result = await codeMode().run(
      `await get_city();\nawait get_weather({ city: 'x', unit: 'kelvin' });`,
    );
    expect(result.ok).toBe(false);
    expect(result.error).toMatchObject({ kind: 'typecheck', line: 2 });
    expect(result.error!.message).toContain(
      'line 2, column 32: Type \'"kelvin"\' is not assignable',
    );
    expect(result.toolCalls).toEqual([]);
    expect(calls).toEqual([]);
    // The full declaration of the tool on the failing line comes with the errors.
    expect(result.error!.message).toContain(
      "Declarations of the tools on those lines:\n```ts\n/** Get current weather data for a city */\ndeclare function get_weather(input: { city: string; unit: 'celsius' | 'fahrenheit' }): Promise<{ temperature: number }>;\n```",
    );
    expect(result.error!.message).not.toContain('declare function get_city');
  });

  it('offers describe() in the sandbox: full documented declarations, not counted as tool calls', async () => {
    const documented = defineTool(
      {
        name: 'search-docs',
        description: `Search the docs. ${'It ranks pages by relevance and recency. '.repeat(10)}`,
        inputSchema: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'Words to find, e.g. "retry policy".' },
          },
          required: ['query'],
        },
        execute: () => [],
      },
      { mode: 'lenient' },
    );
    const mode = codeMode({
      source: [...tools, documented],
      declarations: { detail: 'signatures' },
    });
    const description = mode.executeCodeTool.description;
    expect(description).not.toContain('Search the docs');
    expect(description).toContain("describe('name')");
    const result = await mode.run(
      "console.log(await describe('search_docs'));\nreturn (await describe(['get_city', 'search-docs'])).length;",
    );
    expect(result.error).toBeUndefined();
    expect(result.logs[0]!.message).toContain(
      `/** Search the docs. ${'It ranks pages by relevance and recency. '.repeat(10).trim()} */\ndeclare function search_docs(input: {`,
    );
    expect(result.logs[0]!.message).toContain(
      'query: string; // Words to find, e.g. "retry policy".',
    );
    expect(result.toolCalls).toEqual([]);
    expect(result.value).toBeGreaterThan(result.logs[0]!.message.length);
    const unknown = await mode.run("return await describe('nope');");
    expect(unknown).toMatchObject({ ok: false });
    expect(unknown.error!.message).toContain('no tool named "nope"');
    const typo = await mode.run('return await describe(3);', { typecheck: 'off' });
    expect(typo.error!.message).toMatch(/expected a tool name/);
    // In full detail every description is already there: describe() is not advertised.
    expect(
      codeMode({ declarations: { detail: 'full' } }).executeCodeTool.description,
    ).not.toContain('describe(');
  });

  it('runs code with type errors in warn mode and reports them, and skips the check when off', async () => {
    const bad = `const r: number = 'x' as unknown as number;\nconst s: string = 5;\nreturn r;`;
    const warned = await codeMode({ typecheck: 'warn' }).run(
      bad.replace(' as unknown as number', ''),
    );
    expect(warned.diagnostics.map((d) => d.code)).toEqual([2322, 2322]);
    expect(warned.ok).toBe(true);
    const off = await codeMode({ typecheck: 'off' }).run(`const s: string = 5;\nreturn s;`);
    expect(off).toMatchObject({ ok: true, value: 5, diagnostics: [] });
    expect(off.typecheckMs).toBe(0);
  });

  it('runs the code when only the generated declarations have problems, and reports them', async () => {
    const source: CodeModeToolSource = {
      listTools: () => [
        { name: 'ok_tool', description: 'A tool', inputSchema: { type: 'object', properties: {} } },
      ],
      callTool: async () => ({ content: [{ type: 'text', text: '"fine"' }] }),
    };
    const mode = createCodeMode({ source, executor });
    mode.warmUp();
    // Simulate a declaration the compiler rejects (as a future schema feature might produce).
    mode.declarations.text += 'declare function (;\n';
    const result = await mode.run('return await ok_tool();');
    expect(result).toMatchObject({ ok: true, value: 'fine' });
    expect(result.diagnostics.length).toBeGreaterThan(0);
    expect(result.diagnostics.every((d) => d.origin === 'declarations')).toBe(true);
  });

  it('validates arguments against the tool schema before calling (typecheck off)', async () => {
    calls.length = 0;
    const result = await codeMode({ typecheck: 'off' }).run(
      `return await get_weather({ city: 'x', unit: 'kelvin' });`,
    );
    expect(result.ok).toBe(false);
    expect(result.error).toMatchObject({ kind: 'tool-failed', tool: 'get-weather' });
    expect(result.error!.message).toContain('/unit: must be one of "celsius", "fahrenheit"');
    expect(calls).toEqual([]);
  });

  it('throws tool errors into the script, where they can be caught, with their category', async () => {
    const result = await codeMode().run(`
try {
  await fail_always();
  return 'no error';
} catch (error) {
  return { name: (error as Error).name, message: (error as Error).message, category: (error as { category?: string }).category };
}`);
    expect(result.value).toMatchObject({ name: 'ToolError', category: 'permissionDenied' });
    expect((result.value as { message: string }).message).toContain('no access to the vault');
  });

  it('reports TypeScript that cannot be erased instead of running it', async () => {
    const result = await codeMode({ typecheck: 'off' }).run('enum Unit { C, F }\nreturn Unit.C;');
    expect(result.error).toMatchObject({ kind: 'syntax', line: 1 });
  });

  it('answers the model with console output and the value, or the error and the calls already made', async () => {
    const { executeCodeTool } = codeMode();
    const ok = await execute(executeCodeTool, {
      code: `console.log('hi');\nreturn (await get_city()).city;`,
    });
    expect(ok.isError).toBe(false);
    expect(ok.parts[0]).toEqual({
      type: 'text',
      text: 'Console output:\nhi\n\nReturned value:\n"New York"',
    });
    expect(ok.structuredContent).toEqual({
      ok: true,
      output: 'hi',
      returned: 'New York',
      logs: [{ level: 'log', message: 'hi' }],
      toolCalls: [{ name: 'get_city', outcome: 'ok', durationMs: expect.any(Number) }],
    });
    const outputSchema = getSchemaValidator(executeCodeTool.outputSchema!);
    expect(outputSchema.validate(ok.structuredContent)).toMatchObject({ success: true });
    const failed = await execute(executeCodeTool, {
      code: `await get_city();\nawait fail_always();`,
    });
    expect(failed.isError).toBe(true);
    const text = (failed.parts[0] as { text: string }).text;
    expect(text).toContain('Error (tool-failed)');
    expect(text).toContain('- get_city: ok');
    expect(text).toContain('- fail_always: error');
    expect(failed.structuredContent).toMatchObject({
      ok: false,
      returned: null,
      toolCalls: [
        { name: 'get_city', outcome: 'ok' },
        { name: 'fail_always', outcome: 'error', error: { category: 'permissionDenied' } },
      ],
      error: { kind: 'tool-failed', tool: 'fail_always' },
    });
    expect(outputSchema.validate(failed.structuredContent)).toMatchObject({ success: true });
  });

  it("bounds a run by execute_code's own timeoutMs, never past the code mode's limit", async () => {
    const { executeCodeTool } = codeMode({ typecheck: 'off', limits: { timeoutMs: 1500 } });
    expect(executeCodeTool.inputSchema).toMatchObject({
      properties: {
        timeoutMs: { type: 'integer', description: expect.stringContaining('most: 1500') },
      },
      required: ['code'],
    });
    const own = await execute(executeCodeTool, { code: 'while (true) {}', timeoutMs: 200 });
    expect(own.structuredContent).toMatchObject({
      ok: false,
      error: { kind: 'timeout', message: expect.stringContaining('within 200 ms') },
    });
    // More than the limit is cut to the limit, not refused.
    const capped = await execute(executeCodeTool, { code: 'while (true) {}', timeoutMs: 60_000 });
    expect(capped.structuredContent).toMatchObject({
      error: { kind: 'timeout', message: expect.stringContaining('within 1500 ms') },
    });
    const fallback = await execute(executeCodeTool, { code: 'while (true) {}' });
    expect(fallback.structuredContent).toMatchObject({
      error: { kind: 'timeout', message: expect.stringContaining('within 1500 ms') },
    });
    expect(
      (await execute(executeCodeTool, { code: 'return 6 * 7', timeoutMs: 200 })).structuredContent,
    ).toMatchObject({ ok: true, returned: 42 });
  });

  it('keeps excluded tools and direct-mode tools as direct tools, and offers "both" tools both ways', async () => {
    const mode = codeMode({
      excludedTools: ['take_screenshot'],
      toolModes: { get_city: 'both', fail_always: 'direct' },
    });
    expect(mode.tools.map((t) => t.name)).toEqual([
      'execute_code',
      'get_city',
      'fail_always',
      'take_screenshot',
    ]);
    expect(mode.executeCodeTool.description).toContain('declare function get_city(');
    expect(mode.executeCodeTool.description).not.toContain('take_screenshot');
    expect(mode.executeCodeTool.description).not.toContain('fail_always');
    const direct = mode.directTools.find((t) => t.name === 'take_screenshot')!;
    expect(await execute(direct, {})).toMatchObject({
      parts: [{ type: 'image', mediaType: 'image/png' }],
    });
    const result = await mode.run('return await take_screenshot();');
    expect(result.error).toMatchObject({ kind: 'typecheck' });
  });

  it('rejects bad options with a message naming the field', () => {
    expect(() => codeMode({ toolModes: { get_city: 'sometimes' as 'code' } })).toThrow(
      'Invalid toolModes.get_city',
    );
    expect(() => codeMode({ typecheck: 'strict' as 'error' })).toThrow('Invalid typecheck');
    expect(() => codeMode({ excludedTools: 'get_city' as unknown as string[] })).toThrow(
      'Invalid excludedTools',
    );
  });

  it('routes calls through any CodeModeToolSource and unwraps MCP-shaped results', async () => {
    const seen: Array<{ name: string; args: unknown }> = [];
    const source: CodeModeToolSource = {
      listTools: () => [
        {
          name: 'srv__lookup',
          description: 'Look up a key',
          inputSchema: {
            type: 'object',
            properties: { key: { type: 'string' } },
            required: ['key'],
          },
        },
      ],
      callTool: async (name, args) => {
        seen.push({ name, args });
        return {
          content: [
            { type: 'text', text: JSON.stringify({ value: `v-${(args as { key: string }).key}` }) },
          ],
        };
      },
    };
    const mode = createCodeMode({ source, executor, toolModes: { srv__lookup: 'both' } });
    const result = await mode.run(
      `const r = await srv__lookup({ key: 'k' }) as { value: string };\nreturn r.value;`,
    );
    expect(result).toMatchObject({ ok: true, value: 'v-k' });
    expect(seen).toEqual([{ name: 'srv__lookup', args: { key: 'k' } }]);
    const direct = await execute(mode.directTools[0]!, { key: 'z' });
    expect(direct.parts).toEqual([{ type: 'text', text: '{"value":"v-z"}' }]);
  });

  it("sends execute_code's calls to the caller's tools (context.tools) when the host gives them", async () => {
    const own: string[] = [];
    const caller: string[] = [];
    const sourceOf = (log: string[], answer: string): CodeModeToolSource => ({
      listTools: () => [
        {
          name: 'srv__whoami',
          description: 'Who the call runs as',
          inputSchema: { type: 'object' },
        },
      ],
      callTool: async (name) => {
        log.push(name);
        return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
      },
    });
    const mode = createCodeMode({ source: sourceOf(own, 'server'), executor });
    try {
      const output = (await mode.executeCodeTool.execute!(
        { code: 'return await srv__whoami({});' },
        {
          toolCallId: 'c1',
          signal: new AbortController().signal,
          tools: sourceOf(caller, 'caller'),
        },
      )) as ToolContentOutput;
      expect(output.structuredContent).toMatchObject({ ok: true, returned: 'caller' });
      expect({ own, caller }).toEqual({ own: [], caller: ['srv__whoami'] });
      // Without a caller the code mode's own source answers, as before.
      const plain = await mode.run('return await srv__whoami({});');
      expect(plain.value).toBe('server');
      expect(own).toEqual(['srv__whoami']);
    } finally {
      await mode.close();
    }
  });
});

describe('createCodeModeTools', () => {
  it('returns the tool list to give a model', () => {
    expect(
      createCodeModeTools({ source: tools, executor, excludedTools: ['get_city'] }).map(
        (t) => t.name,
      ),
    ).toEqual(['execute_code', 'get_city']);
  });

  it('returns a disposer: 100 tool sets made and closed leave no listener on the source', async () => {
    const listeners = new Set<() => void>();
    const source: CodeModeToolSource = {
      listTools: () => [{ name: 'first', inputSchema: { type: 'object', properties: {} } }],
      callTool: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
      onToolsChanged: (listener) => {
        const notify = () => listener({});
        listeners.add(notify);
        return () => listeners.delete(notify);
      },
    };
    for (let i = 0; i < 100; i++) {
      const made = createCodeModeTools({ source, executor });
      expect(made.map((t) => t.name)).toEqual(['execute_code']);
      await made.close();
    }
    expect(listeners.size).toBe(0);
  });
});

describe('runCode', () => {
  it('runs a script and returns console output, the returned value and the tool calls', async () => {
    const result = await runCode(
      `console.warn('careful');\nreturn (await get_weather({ city: 'Oslo', unit: 'celsius' })).temperature;`,
      {
        source: tools,
        executor,
      },
    );
    expect(result).toMatchObject({
      ok: true,
      value: 30,
      logs: [{ level: 'warn', message: 'careful' }],
    });
    expect(result.toolCalls).toMatchObject([
      { name: 'get-weather', outcome: 'ok', arguments: { city: 'Oslo', unit: 'celsius' } },
    ]);
  });

  it('uses one shared default executor when none is given and closes it with the last user', async () => {
    const result = await runCode('return 1 + 1;', { source: tools, typecheck: 'off' });
    expect(result).toMatchObject({ ok: true, value: 2 });
    const first = createCodeMode({ source: tools, typecheck: 'off' });
    const second = createCodeMode({ source: tools, typecheck: 'off' });
    expect(await first.run('return 3;')).toMatchObject({ ok: true, value: 3 });
    await first.close();
    await first.close();
    // Still open for the second user.
    expect(await second.run('return 4;')).toMatchObject({ ok: true, value: 4 });
    await second.close();
    await expect(second.run('return 5;')).rejects.toThrow('This code mode is closed');
  });
});
