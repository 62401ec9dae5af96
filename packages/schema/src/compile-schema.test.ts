import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { compileSchema as compileWithAjv } from './compile-schema-ajv.js';
import { compileSchema as compileByWalking } from './compile-schema-cfworker.js';
import type { JsonSchema } from './json-schema.js';

const run = promisify(execFile);

const toolSchema: JsonSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1, pattern: '^/' },
    mode: { enum: ['read', 'write'] },
    kind: { const: 'file' },
    size: { type: ['integer', 'null'], minimum: 0, maximum: 10 },
    url: { type: 'string', format: 'uri' },
    'a/b~c': { type: 'number' },
    edits: {
      type: 'array',
      maxItems: 2,
      items: {
        type: 'object',
        properties: { oldText: { type: 'string' }, newText: { type: 'string' } },
        required: ['oldText', 'newText'],
        additionalProperties: false,
      },
    },
  },
  required: ['path', 'edits'],
  additionalProperties: false,
};

// Values with one or more mistakes each; both backends must say the same about every one.
const cases: [string, unknown][] = [
  ['valid', { path: '/a', edits: [{ oldText: 'a', newText: 'b' }] }],
  ['missing required', { edits: [] }],
  ['unknown property', { path: '/a', edits: [], extra: 1 }],
  ['wrong type', { path: 3, edits: [] }],
  ['enum', { path: '/a', edits: [], mode: 'delete' }],
  ['const', { path: '/a', edits: [], kind: 'dir' }],
  ['type list', { path: '/a', edits: [], size: 'big' }],
  ['minimum', { path: '/a', edits: [], size: -1 }],
  ['maximum', { path: '/a', edits: [], size: 11 }],
  ['minLength and pattern', { path: '', edits: [] }],
  ['pattern', { path: 'relative', edits: [] }],
  ['format', { path: '/a', edits: [], url: 'not a uri' }],
  ['escaped pointer', { path: '/a', edits: [], 'a/b~c': 'x' }],
  ['nested', { path: '/a', edits: [{ oldText: 'a' }, { oldText: 'a', newText: 1, more: true }] }],
  ['maxItems', { path: '/a', edits: [{ oldText: '', newText: '' }, {}, {}] }],
  ['not an object', 'text'],
];

const sorted = (issues: unknown[] | undefined) =>
  (issues ?? []).map((issue) => JSON.stringify(issue)).sort();

describe('compileSchema', () => {
  for (const [name, value] of cases) {
    it(`reports the same issues with ajv and without code generation: ${name}`, () => {
      const withAjv = compileWithAjv(toolSchema)(value);
      const byWalking = compileByWalking(toolSchema)(value);
      expect(sorted(byWalking)).toEqual(sorted(withAjv));
      if (name === 'valid') expect(withAjv).toBeUndefined();
      else expect(withAjv?.length).toBeGreaterThan(0);
    });
  }

  it('names the path and what was expected without code generation', () => {
    const issues = compileByWalking(toolSchema)({ edits: [{ oldText: 'a', newText: 2 }] });
    expect(issues).toEqual(
      expect.arrayContaining([
        { pointer: '/path', message: 'is required but missing', expected: 'a value' },
        { pointer: '/edits/0/newText', message: 'must be string', expected: 'string' },
      ]),
    );
  });

  it('follows the draft a schema declares', () => {
    const draft07: JsonSchema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'array',
      items: [{ type: 'string' }],
      additionalItems: false,
    };
    for (const compile of [compileWithAjv, compileByWalking]) {
      expect(compile(draft07)(['a'])).toBeUndefined();
      expect(compile(draft07)(['a', 'b'])).not.toBeUndefined();
    }
  });

  it('rejects a broken schema when it is compiled, not when a value is checked', () => {
    for (const compile of [compileWithAjv, compileByWalking]) {
      expect(() => compile({ type: 'string', pattern: '(' })).toThrow();
      expect(() => compile({ $ref: '#/$defs/missing' })).toThrow();
      expect(() => compile({ $defs: { a: { type: 'string' } }, $ref: '#/$defs/a' })).not.toThrow();
    }
  });

  it('falls back to the walking validator where code generation is refused', async () => {
    // The entry a runtime picks by default, in a Node that refuses code generation from strings as
    // browsers with a Content-Security-Policy and Cloudflare Workers do.
    const script = `
      const { defineTool, validateAgainstSchema } = await import('@toolwire/schema');
      const tool = defineTool({
        name: 'echo',
        description: 'Echoes the text it is given',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        execute: async ({ text }) => text,
      });
      let refused = false;
      try { new Function('return 1'); } catch { refused = true; }
      const result = validateAgainstSchema(tool.inputSchema, { text: 1 });
      console.log(JSON.stringify({ refused, result }));
    `;
    const { stdout } = await run(
      process.execPath,
      [
        '--disallow-code-generation-from-strings',
        '--conditions=@toolwire/source',
        '--import',
        import.meta.resolve('tsx'),
        '--input-type=module',
        '-e',
        script,
      ],
      { cwd: new URL('..', import.meta.url) },
    );
    expect(JSON.parse(stdout)).toEqual({
      refused: true,
      result: {
        success: false,
        issues: [{ pointer: '/text', message: 'must be string', expected: 'string' }],
      },
    });
  });
});
