import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createSandbox,
  runToolwire,
  type Sandbox,
  nativeOnlyConfig,
  expectOneLineError,
} from './helpers.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.cleanup());

const run = (args: string[], input?: string) =>
  runToolwire(args, { env: sandbox.env, ...(input !== undefined ? { input } : {}) });

function script(name: string, text: string): string {
  const file = join(sandbox.home, name);
  writeFileSync(file, text);
  return file;
}

describe('toolwire code types', () => {
  it('prints a declaration for every configured tool, MCP servers included', async () => {
    const result = await run(['code', 'types']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('declare function calculate(input: {');
    expect(result.stdout).toContain('declare function fs__read_text_file(');
    expect(result.stdout).toContain('declare function memory__read_graph(');
  });

  it('prints the declarations and the function-to-tool map with --json', async () => {
    const result = await run([...nativeOnlyConfig(sandbox.home), 'code', 'types', '--json']);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as {
      declarations: string;
      functions: Array<{ identifier: string; tool: string }>;
    };
    expect(body.declarations).toContain('declare function hash(');
    expect(body.functions).toEqual([
      { identifier: 'hash', tool: 'hash' },
      { identifier: 'time', tool: 'time' },
      { identifier: 'calculate', tool: 'calculate' },
    ]);
  });
});

describe('toolwire code types (excluded tools)', () => {
  it('leaves out the tools codeMode.excludedTools keeps direct', async () => {
    const file = join(sandbox.home, 'excluded.json');
    writeFileSync(
      file,
      JSON.stringify({ nativeTools: ['hash', 'calculate'], codeMode: { excludedTools: ['hash'] } }),
    );
    const result = await run(['--config', file, 'code', 'types']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('declare function calculate(');
    expect(result.stdout).not.toContain('declare function hash(');
  });
});

describe('toolwire code prompt', () => {
  it('prints the execute_code tool as the model receives it, with --json', async () => {
    const result = await run([...nativeOnlyConfig(sandbox.home), 'code', 'prompt', '--json']);
    expect(result.code).toBe(0);
    const tool = JSON.parse(result.stdout) as {
      name: string;
      description: string;
      inputSchema: { required: string[] };
      outputSchema: { required: string[] };
    };
    expect(Object.keys(tool)).toEqual(['name', 'description', 'inputSchema', 'outputSchema']);
    expect(tool.name).toBe('execute_code');
    expect(tool.description).toContain('declare function calculate(input: {');
    expect(tool.inputSchema.required).toEqual(['code']);
    expect(tool.outputSchema.required).toEqual(['ok', 'output', 'returned', 'logs', 'toolCalls']);
    expect(result.stderr).toMatch(/^execute_code: about \d+ tokens; declares 3 of 3 tools/);
  });

  it('prints name, description and schemas for people, and applies the per-model settings', async () => {
    const file = join(sandbox.home, 'per-model.json');
    writeFileSync(
      file,
      JSON.stringify({
        nativeTools: ['hash', 'time', 'calculate'],
        codeMode: {
          defaults: { enabled: true, excludedTools: ['hash'] },
          models: [{ match: 'small-*', enabled: false, excludedTools: ['hash', 'time'] }],
        },
      }),
    );
    const plain = await run(['--config', file, 'code', 'prompt']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^execute_code\n\nRuns TypeScript/);
    expect(plain.stdout).toContain('declare function time(');
    expect(plain.stdout).not.toContain('declare function hash(');
    expect(plain.stdout).toContain('input schema:\n{');
    expect(plain.stdout).toContain('output schema:\n{');
    expect(plain.stderr).toContain('declares 2 of 2 tools');
    expect(plain.stderr).toContain('1 tool stays direct');
    const small = await run(['--config', file, 'code', 'prompt', '--model', 'small-3b']);
    expect(small.code).toBe(0);
    expect(small.stdout).not.toContain('declare function time(');
    expect(small.stderr).toContain('code mode is off for this model in the config');
    expect(small.stderr).toContain('2 tools stay direct');
  });

  it('says which key is wrong in a bad codeMode section', async () => {
    const file = join(sandbox.home, 'bad.json');
    writeFileSync(file, JSON.stringify({ codeMode: { models: [{ match: 'x', enabled: 'no' }] } }));
    const result = await run(['--config', file, 'code', 'prompt']);
    expect(result.code).toBe(2);
    expect(expectOneLineError(result.stderr)).toContain('codeMode.models[0].enabled');
  });
});

describe('toolwire code run', () => {
  it('runs a script against the tools and prints console output and the returned value', async () => {
    const file = script(
      'sum.ts',
      [
        'const a = await calculate({ expression: "6*7" });',
        'const h = await hash({ data: "abc", algorithm: "md5" });',
        'console.log("computed", a.result);',
        'return { answer: a.result, md5: h.result };',
      ].join('\n'),
    );
    const result = await run([...nativeOnlyConfig(sandbox.home), 'code', 'run', file]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `computed 42\n${JSON.stringify({ answer: 42, md5: '900150983cd24fb0d6963f7d28e17f72' }, null, 2)}\n`,
    );
  });

  it('reads the script from standard input with -', async () => {
    const result = await run(
      [...nativeOnlyConfig(sandbox.home), 'code', 'run', '-'],
      'return "from stdin";',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('from stdin\n');
  });

  it('accepts an async arrow function expression', async () => {
    const result = await run(
      [...nativeOnlyConfig(sandbox.home), 'code', 'run', '-'],
      'async () => { const r = await calculate({ expression: "2^10" }); return r.result; }',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('1024\n');
  });

  it('reaches MCP servers of the embedded default from the sandbox', async () => {
    const file = script(
      'read.ts',
      'const r = await fs__read_text_file({ path: "notes/todo.txt" });\nreturn r;',
    );
    const result = await run(['code', 'run', file]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('toolwire tools list');
  });

  it('prints the whole run as JSON with --json', async () => {
    const file = script(
      'j.ts',
      'console.log("hi");\nreturn (await calculate({ expression: "1+1" })).result;',
    );
    const result = await run([...nativeOnlyConfig(sandbox.home), '--json', 'code', 'run', file]);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as {
      ok: boolean;
      value: unknown;
      logs: Array<{ level: string; message: string }>;
      toolCalls: Array<{ name: string; outcome: string }>;
    };
    expect(body.ok).toBe(true);
    expect(body.value).toBe(2);
    expect(body.logs).toEqual([{ level: 'log', message: 'hi' }]);
    expect(body.toolCalls.map((call) => [call.name, call.outcome])).toEqual([['calculate', 'ok']]);
  });

  it('refuses to run code with type errors by default (exit 2), and runs it with --typecheck off', async () => {
    const file = script('bad.ts', 'const r = await calculate({ expression: 42 });\nreturn "ran";');
    const refused = await run([...nativeOnlyConfig(sandbox.home), 'code', 'run', file]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(expectOneLineError(refused.stderr)).toMatch(
      /type errors and was not run: line 1, column \d+: .*TS\d+/,
    );

    const warned = await run([
      ...nativeOnlyConfig(sandbox.home),
      'code',
      'run',
      file,
      '--typecheck',
      'warn',
    ]);
    // The type error is reported, then the call itself fails validation at run time.
    expect(warned.stderr).toMatch(/warning: line 1/);
    expect(warned.code).toBe(1);

    const ok = script('ok.ts', 'const n: number = "not a number" as unknown as number;\nreturn n;');
    const off = await run([
      ...nativeOnlyConfig(sandbox.home),
      'code',
      'run',
      ok,
      '--typecheck',
      'off',
    ]);
    expect(off.code).toBe(0);
    expect(off.stdout).toBe('not a number\n');
  });

  it('exits 1 with the error when the script throws', async () => {
    const file = script('throw.ts', 'throw new Error("boom");');
    const result = await run([...nativeOnlyConfig(sandbox.home), 'code', 'run', file]);
    expect(result.code).toBe(1);
    expect(expectOneLineError(result.stderr)).toMatch(/script failed \(runtime\).*boom/);
  });

  it('holds the script to --timeout-ms and --max-tool-calls', async () => {
    const loop = script('loop.ts', 'while (true) {}');
    const timedOut = await run([
      ...nativeOnlyConfig(sandbox.home),
      'code',
      'run',
      loop,
      '--timeout-ms',
      '200',
    ]);
    expect(timedOut.code).toBe(1);
    expect(expectOneLineError(timedOut.stderr)).toContain('(timeout)');

    const calls = script(
      'calls.ts',
      'for (let i = 0; i < 3; i++) await calculate({ expression: "1+1" });\nreturn "done";',
    );
    const limited = await run([
      ...nativeOnlyConfig(sandbox.home),
      'code',
      'run',
      calls,
      '--max-tool-calls',
      '2',
    ]);
    expect(limited.code).toBe(1);
    expect(expectOneLineError(limited.stderr)).toContain('too-many-tool-calls');
  });

  it('cuts console output at --max-output-kb', async () => {
    const file = script(
      'noisy.ts',
      'for (let i = 0; i < 2000; i++) console.log("x".repeat(100));\nreturn 1;',
    );
    const result = await run([
      ...nativeOnlyConfig(sandbox.home),
      'code',
      'run',
      file,
      '--max-output-kb',
      '1',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBeLessThan(4 * 1024);
    expect(result.stderr).toContain('--max-output-kb');
  });

  it('rejects bad flags and missing files with exit 2', async () => {
    const file = script('x.ts', 'return 1;');
    for (const args of [
      ['--typecheck', 'maybe'],
      ['--timeout-ms', '0'],
      ['--memory-mb', 'lots'],
    ]) {
      const result = await run([...nativeOnlyConfig(sandbox.home), 'code', 'run', file, ...args]);
      expect(result.code).toBe(2);
      expect(expectOneLineError(result.stderr)).toContain(args[0]!);
    }
    const missing = await run([
      ...nativeOnlyConfig(sandbox.home),
      'code',
      'run',
      join(sandbox.home, 'nope.ts'),
    ]);
    expect(missing.code).toBe(2);
    expect(expectOneLineError(missing.stderr)).toContain('no such file');
  });
});

describe('toolwire code run (servers started on demand)', () => {
  /** A config whose one server (server-memory) appends a line to a log file each time it starts. */
  function countedServer(): { args: string[]; starts: () => number } {
    const log = join(sandbox.home, 'starts.log');
    writeFileSync(log, '');
    const manifest = createRequire(import.meta.url).resolve(
      '@modelcontextprotocol/server-memory/package.json',
    );
    const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
    const entry = join(dirname(manifest), Object.values(bin)[0]!);
    const wrapper = join(sandbox.home, 'counted-memory.mjs');
    writeFileSync(
      wrapper,
      `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(log)}, 'started\\n');\nawait import(${JSON.stringify(pathToFileURL(entry).href)});\n`,
    );
    const file = join(sandbox.home, 'counted.json');
    writeFileSync(
      file,
      JSON.stringify({
        nativeTools: [],
        mcpServers: {
          memory: {
            command: process.execPath,
            args: [wrapper],
            env: { MEMORY_FILE_PATH: join(sandbox.home, 'memory.jsonl') },
          },
        },
      }),
    );
    const starts = () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
    return { args: ['--config', file], starts };
  }

  it('starts a server the tool cache knows only when the script calls one of its tools', async () => {
    const { args, starts } = countedServer();
    // First run: the cache does not know the server yet, so it starts to list its tools.
    const first = await run([...args, 'code', 'run', '-'], 'return 1;');
    expect(first.stdout.trim()).toBe('1');
    expect(starts()).toBe(1);
    // Its tools are now known: a script that calls none of them starts nothing, and is still
    // checked against their declarations.
    const quiet = await run(
      [...args, 'code', 'run', '-'],
      'const use: typeof memory__read_graph | undefined = undefined;\nreturn 2;',
    );
    expect({ code: quiet.code, stdout: quiet.stdout.trim() }).toEqual({ code: 0, stdout: '2' });
    expect(starts()).toBe(1);
    const calling = await run(
      [...args, 'code', 'run', '-'],
      'const graph = await memory__read_graph({});\nreturn Object.keys(graph as object);',
    );
    expect(calling.code).toBe(0);
    expect(JSON.parse(calling.stdout)).toEqual(['entities', 'relations']);
    expect(starts()).toBe(2);
  });
});
