import { describe, expect, it } from 'vitest';
import { prepareScript } from './prepare-script.js';

describe('prepareScript', () => {
  it('wraps a function body so lines stay where they were', () => {
    const prepared = prepareScript('const a = 1;\nreturn a;', 1000);
    expect(prepared).toEqual({
      ok: true,
      script: { code: '(async () => {const a = 1;\nreturn a;\n})', firstLineOffset: 14 },
    });
  });

  it('keeps a single function expression as it is', () => {
    const prepared = prepareScript('async () => {\n  return 1;\n}', 1000);
    expect(prepared.ok && prepared.script.code).toBe('(async () => {\n  return 1;\n}\n)');
  });

  it('treats an immediately called function as a body', () => {
    const prepared = prepareScript('(async () => 1)()', 1000);
    expect(prepared.ok && prepared.script.code.startsWith('(async () => {(async () => 1)()')).toBe(
      true,
    );
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
