import { describe, expect, it } from 'vitest';
import { originalColumn, prepareScript, stripMarkdownFence } from './prepare-script.js';

describe('prepareScript', () => {
  /** Runs a prepared script in this realm, recording what its hooks were told, in order. */
  async function runPrepared(source: string): Promise<string[]> {
    const prepared = prepareScript(source, 10_000);
    if (!prepared.ok) throw new Error(prepared.error.message);
    const events: string[] = [];
    const factory = new Function(`return ${prepared.script.code}`)() as (
      ...hooks: Array<(value?: unknown) => void>
    ) => () => unknown;
    await factory(
      (value) => void events.push(`return ${JSON.stringify(value)}`),
      (error) => void events.push(`throw ${(error as Error).message}`),
      () => void events.push('end'),
    )();
    return events;
  }

  it('tells the harness how a function body ended, after its own finally blocks', async () => {
    expect(await runPrepared('const a = 1;\nreturn a;')).toEqual(['return 1', 'end']);
    expect(await runPrepared('const f = () => { return 2; };\nf();')).toEqual([
      'return undefined',
      'end',
    ]);
    expect(await runPrepared('try { return 1; } finally { return 2; }')).toEqual([
      'return 1',
      'return 2',
      'end',
    ]);
    expect(await runPrepared('a: { try { return 1; } finally { break a; } }\nreturn 3')).toEqual([
      'return 1',
      'return 3',
      'end',
    ]);
    expect(await runPrepared("await null; throw new Error('late');")).toEqual([
      'throw late',
      'end',
    ]);
    expect(await runPrepared('if (true) return\n5')).toEqual(['return undefined', 'end']);
    expect(await runPrepared('return 1, 2')).toEqual(['return 2', 'end']);
  });

  it('does the same inside a single function expression, and calls any other one', async () => {
    expect(await runPrepared('async () => {\n  return 1;\n}')).toEqual(['return 1', 'end']);
    expect(await runPrepared('(function () { return [function () { return 2; }][0](); })')).toEqual(
      ['return 2', 'end'],
    );
    // A concise body is called: its result (here a promise) is what the script returned.
    expect(await runPrepared('async () => 5')).toEqual(['return {}', 'end']);
  });

  it('keeps the directive prologue first, so "use strict" still applies', async () => {
    expect(await runPrepared('"use strict";\nreturn (function () { return this; })();')).toEqual([
      'return undefined',
      'end',
    ]);
    expect(await runPrepared("'use strict'\nreturn (function () { return this; })();")).toEqual([
      'return undefined',
      'end',
    ]);
    expect(await runPrepared("'just a string'")).toEqual(['return undefined', 'end']);
    expect(await runPrepared('return (function () { return typeof this; })();')).toEqual([
      'return "object"',
      'end',
    ]);
  });

  it('names its hooks so the script cannot shadow them', async () => {
    const prepared = prepareScript('const __tw_r = 1; return __tw_r;', 1000);
    expect(prepared.ok && prepared.script.code).toMatch(/^\(\(__tw0_r,/);
    expect(await runPrepared('const __tw_r = 1; return __tw_r;')).toEqual(['return 1', 'end']);
  });

  it('keeps lines and maps columns back to the script as given', () => {
    const source = 'const a = 1;\nreturn a + b; const c = 2';
    const prepared = prepareScript(source, 1000);
    if (!prepared.ok) throw new Error('expected ok');
    expect(prepared.script.code.split('\n')[1]).toMatch(/^return __tw_r\(\(a \+ b\)\); const c/);
    const generated = prepared.script.code.split('\n');
    // Where the engine would report 'a' on line 1, and 'b' and 'const' on line 2.
    const at = (line: number, text: string): number => generated[line - 1]!.indexOf(text) + 1;
    expect(originalColumn(prepared.script, 1, at(1, 'a = 1'))).toBe(7);
    expect(originalColumn(prepared.script, 2, at(2, 'b))'))).toBe(12);
    expect(originalColumn(prepared.script, 2, at(2, 'const'))).toBe(15);
  });

  it('reports the position of a syntax error in the source as given', () => {
    const prepared = prepareScript('let x = 1;\nlet = = 2;', 1000);
    expect(prepared).toMatchObject({ ok: false, error: { kind: 'syntax', line: 2, column: 7 } });
  });

  it('measures the source in UTF-8 bytes', () => {
    expect(prepareScript('"é"', 3)).toMatchObject({
      ok: false,
      error: { kind: 'source-too-large' },
    });
    expect(prepareScript('"e"', 3).ok).toBe(true);
  });
});

describe('stripMarkdownFence', () => {
  it('turns fence lines into blank lines so line numbers stay', () => {
    expect(stripMarkdownFence('```typescript\nreturn 1;\n```')).toBe('\nreturn 1;');
    expect(stripMarkdownFence('return 1;')).toBe('return 1;');
  });

  it('keeps blank lines before the fence, so an error points at the line as sent', () => {
    expect(stripMarkdownFence('\n\n```js\nnull.f();\n```\n')).toBe('\n\n\nnull.f();');
    const prepared = prepareScript('\n\n```js\nconst = 1;\n```', 10_000);
    expect(prepared).toMatchObject({ ok: false, error: { kind: 'syntax', line: 4 } });
  });
});
