import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { generateDeclarations } from './declarations.js';
import { normalizeScript } from './script.js';
import { formatDiagnostics } from './code-diagnostic.js';
import { CodeTypeChecker } from './type-checker.js';

const declarations = generateDeclarations([
  {
    name: 'get_city',
    description: 'Current city',
    inputSchema: { type: 'object', properties: {} },
    outputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  {
    name: 'get-weather',
    description: 'Weather for a city',
    inputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      },
      required: ['city', 'unit'],
    },
    outputSchema: {
      type: 'object',
      properties: { temperature: { type: 'number' } },
      required: ['temperature'],
    },
  },
  {
    name: 'untyped',
    description: 'No output schema',
    inputSchema: { type: 'object', properties: {} },
  },
]);

const checker = new CodeTypeChecker();
const check = (code: string) =>
  checker.check(normalizeScript(code).body, declarations.text, declarations.checkPrelude);

describe('CodeTypeChecker', () => {
  it('accepts correct code: top-level await, return, helpers, console and the tools object', () => {
    expect(
      check(`const { city } = await get_city();
const results = await Promise.all(['celsius', 'fahrenheit'].map((unit) => get_weather({ city, unit: unit as 'celsius' })));
const total = results.reduce((sum, r) => sum + r.temperature, 0);
console.log(city, total);
const again = await tools.get_weather({ city, unit: 'celsius' });
return { city, total, again: again.temperature };`),
    ).toEqual([]);
  });

  it('reports a wrong enum value at its line and column', () => {
    const diagnostics = check(
      `const { city } = await get_city();\nconst w = await get_weather({ city, unit: 'kelvin' });`,
    );
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ line: 2, column: 37, code: 2322 });
    expect(diagnostics[0]!.message).toContain(`'"kelvin"' is not assignable`);
  });

  it('reports excess and missing properties, unknown members, unknown functions and arity', () => {
    const codes = check(`await get_weather({ city: 'x', unit: 'celsius', ident: 1 });
await get_weather({ city: 'x' });
const w = await get_weather({ city: 'x', unit: 'celsius' });
w.temp;
await get_wether({});
await get_city({}, 2);`).map((d) => [d.line, d.code]);
    expect(codes).toEqual([
      [1, 2353],
      [2, 2345],
      [4, 2339],
      [5, 2552],
      [6, 2554],
    ]);
  });

  it('lets the model use the unknown result of a tool without an output schema', () => {
    expect(check(`const x = await untyped();\nreturn x.anything.goes;`)).toEqual([]);
  });

  it('reports syntax errors', () => {
    const diagnostics = check(`const x = ;`);
    expect(diagnostics[0]).toMatchObject({ line: 1, code: 1109 });
  });

  it('checks the async-arrow and fenced forms at the lines the model wrote', () => {
    const diagnostics = check(
      '```ts\nasync () => {\n  const c = await get_city();\n  return c.town;\n}\n```',
    );
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ line: 4, code: 2339 });
  });

  it('reuses its program between checks and stays correct when the declarations change', () => {
    const other = generateDeclarations([
      { name: 'only', description: 'Only tool', inputSchema: { type: 'object', properties: {} } },
    ]);
    expect(checker.check('await only();', other.text, other.checkPrelude)).toEqual([]);
    expect(
      checker.check('await get_city();', other.text, other.checkPrelude).map((d) => d.code),
    ).toEqual([2304]);
    expect(check('await get_city();')).toEqual([]);
  });

  it('finds problems in the declarations themselves, with their line', () => {
    expect(checker.checkDeclarations('declare function ok(): Promise<unknown>;')).toEqual([]);
    expect(
      checker.checkDeclarations('declare function ok(): Promise<unknown>;\ntype A = Missing;'),
    ).toMatchObject([
      { line: 2, code: 2304, message: "in the declarations: Cannot find name 'Missing'." },
    ]);
    expect(checker.check('return 1;', 'declare function (;')[0]!.message).toMatch(
      /^in the declarations: /,
    );
  });

  it('formats diagnostics for the model', () => {
    expect(
      formatDiagnostics([{ line: 2, column: 5, code: 2322, origin: 'script', message: 'Bad.' }]),
    ).toBe('line 2, column 5: Bad. (TS2322)');
  });
});

describe('CodeTypeChecker file system', () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'toolwire-checker-'));
  writeFileSync(
    path.join(directory, 'secret.ts'),
    `export const secret = 'TOP-SECRET-VALUE';\nexport type Token = 'TOP-SECRET-TYPE';\n`,
  );
  writeFileSync(path.join(directory, 'types.d.ts'), `declare const leaked: 'TOP-SECRET-GLOBAL';\n`);
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  const existing = path.join(directory, 'secret');
  const missing = path.join(directory, 'no-such-file');

  /** Runs a check while recording every file TypeScript's system layer is asked to read. */
  const checkRecordingReads = (code: string) => {
    const readFile = vi.spyOn(ts.sys, 'readFile');
    const fileExists = vi.spyOn(ts.sys, 'fileExists');
    try {
      const diagnostics = check(code);
      const touched = [...readFile.mock.calls, ...fileExists.mock.calls].map(([file]) => file);
      return { diagnostics, touched };
    } finally {
      readFile.mockRestore();
      fileExists.mockRestore();
    }
  };
  const probes: Record<string, (target: string) => string> = {
    'an import() type': (target) =>
      `type S = typeof import('${target}');\nconst n: number = (null as unknown as S).secret;\nreturn n;`,
    'an import() type of a type': (target) =>
      `const n: number = null as unknown as import('${target}').Token;\nreturn n;`,
    'a dynamic import': (target) => `const m = await import('${target}');\nreturn m.secret;`,
    'a triple-slash reference': () =>
      `/// <reference path="${path.join(directory, 'types.d.ts')}" />\nconst n: number = leaked;\nreturn n;`,
  };

  for (const [label, probe] of Object.entries(probes)) {
    it(`reads no host file and echoes none through ${label}`, () => {
      const found = checkRecordingReads(probe(existing));
      const absent = checkRecordingReads(probe(missing));
      const text = JSON.stringify(found.diagnostics);
      expect(text).not.toContain('TOP-SECRET');
      // Only TypeScript's own lib files are ever read.
      for (const file of [...found.touched, ...absent.touched]) {
        expect(path.basename(file)).toMatch(/^lib(\.[\w-]+)*\.d\.ts$/);
      }
      // No existence oracle: a real file and a missing one give the same answer.
      expect(text.replaceAll(existing, 'X')).toBe(
        JSON.stringify(absent.diagnostics).replaceAll(missing, 'X'),
      );
    });
  }

  it('reports a module specifier as an error that says modules do not exist here', () => {
    const diagnostics = check(`type S = typeof import('node:fs');\nreturn 1;`);
    expect(diagnostics).toMatchObject([
      { line: 1, origin: 'script', message: expect.stringMatching(/no modules/) },
    ]);
    expect(diagnostics[0]!.message).not.toMatch(/moduleResolution|paths/);
  });
});
