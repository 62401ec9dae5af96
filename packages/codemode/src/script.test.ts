import { describe, expect, it } from 'vitest';
import { normalizeScript, stripTypes } from './script.js';

describe('normalizeScript', () => {
  it('keeps a function body as it is', () => {
    expect(normalizeScript('const x = 1;\nreturn x;')).toEqual({
      body: 'const x = 1;\nreturn x;',
      wasFunctionExpression: false,
    });
  });

  it('turns a single async arrow or function expression into a body that calls it, on the same lines', () => {
    const arrow = normalizeScript('async () => {\n  return 1;\n}');
    expect(arrow.wasFunctionExpression).toBe(true);
    expect(arrow.body).toBe('return await (async () => {\n  return 1;\n})();');
    expect(normalizeScript('(async function () { return 2; });').body).toBe(
      'return await ((async function () { return 2; }))();',
    );
  });
});

describe('stripTypes', () => {
  it('erases annotations, interfaces and casts and keeps every line and column', () => {
    const source = `interface P { x: number }\nconst p: P = { x: 1 } as P;\nconst f = (a: string): number => a.length;\nreturn f('ab') + p.x;`;
    const result = stripTypes(source);
    expect(result.ok).toBe(true);
    expect(result.code.split('\n')).toHaveLength(4);
    expect(result.code).not.toContain('interface');
    expect(result.code.split('\n')[3]).toBe("return f('ab') + p.x;");
    expect(result.code.indexOf('= { x: 1 }')).toBe(source.indexOf('= { x: 1 }'));
  });

  it('reports syntax that cannot be erased, such as enums', () => {
    const result = stripTypes('enum Color { Red }\nreturn Color.Red;');
    expect(result.ok).toBe(false);
    expect(result.unsupported[0]).toMatchObject({ line: 1, column: 1 });
  });
});
