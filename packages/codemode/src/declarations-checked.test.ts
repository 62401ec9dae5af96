// Declarations TypeScript itself accepts: for seeded random schemas, for every real MCP server tool
// list we captured, and for shapes several tools share; the arguments a server would accept must
// type-check against them.
import { describe, expect, it } from 'vitest';
import { getSchemaValidator, type JsonSchema } from '@toolwire/schema';
import { generateDeclarations, type CodeModeToolInfo } from './declarations.js';
import { CodeTypeChecker } from './type-checker.js';

const checker = new CodeTypeChecker();

/** A small value valid for `schema` when it can find one (required properties only, first branches). */
function sampleValue(schema: unknown, root: unknown, depth = 0): unknown {
  if (depth > 8 || schema === true || schema === undefined) return 'x';
  if (typeof schema !== 'object' || schema === null) return null;
  const s = schema as Record<string, unknown>;
  if (typeof s.$ref === 'string') {
    if (s.$ref === '#') return sampleValue(root, root, depth + 1);
    const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(s.$ref);
    const defs = match ? ((root as Record<string, Record<string, unknown>>)[match[1]!] ?? {}) : {};
    return match ? sampleValue(defs[match[2]!], root, depth + 1) : 'x';
  }
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[keyword]))
      return sampleValue((s[keyword] as unknown[])[0], root, depth + 1);
  }
  if (Array.isArray(s.allOf)) {
    return Object.assign({}, ...s.allOf.map((branch) => sampleValue(branch, root, depth + 1)));
  }
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') ?? 'null') : s.type;
  switch (type ?? (s.properties ? 'object' : s.items || s.prefixItems ? 'array' : undefined)) {
    case 'string':
      return 'x';
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return Array.isArray(s.prefixItems)
        ? s.prefixItems.map((item) => sampleValue(item, root, depth + 1))
        : [sampleValue(s.items, root, depth + 1)];
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const name of Array.isArray(s.required) ? (s.required as string[]) : []) {
        out[name] = sampleValue(properties[name], root, depth + 1);
      }
      return out;
    }
    default:
      return 'x';
  }
}

/** Whether the schema (compiled by ajv) accepts the value; false when it cannot be compiled. */
function accepts(schema: unknown, value: unknown): boolean {
  try {
    return getSchemaValidator(schema as JsonSchema).validate(value).success;
  } catch {
    return false;
  }
}

describe('generateDeclarations (checked by TypeScript)', () => {
  it('produces declarations TypeScript accepts for random schemas (seeded)', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const names = [
      'a',
      'b-c',
      'd.e',
      '__proto__',
      'constructor',
      '0',
      "it's",
      'x y',
      'Promise',
      'then',
    ];
    const schema = (depth: number): Record<string, unknown> => {
      const kind =
        depth > 3
          ? pick(['string', 'number', 'enum', 'null'])
          : pick([
              'string',
              'number',
              'boolean',
              'enum',
              'const',
              'object',
              'array',
              'tuple',
              'anyOf',
              'oneOf',
              'allOf',
              'nullable',
              'ref',
              'types',
              'record',
              'empty',
            ]);
      const description =
        random() < 0.3
          ? { description: pick(['plain', 'has */ end', 'two\nlines', 'fence ```', '${x}']) }
          : {};
      switch (kind) {
        case 'enum':
          return {
            type: 'string',
            enum: ['x', "y'z", 'a"b'].slice(0, 1 + Math.floor(random() * 3)),
            ...description,
          };
        case 'const':
          return { const: pick(['k', 3, true, null]) };
        case 'object': {
          const properties: Record<string, unknown> = {};
          for (let i = 0; i < 1 + Math.floor(random() * 4); i++)
            properties[pick(names)] = schema(depth + 1);
          return {
            type: 'object',
            properties,
            required: Object.keys(properties).filter(() => random() < 0.5),
            additionalProperties: pick([true, false, undefined, { type: 'string' }]),
            ...description,
          };
        }
        case 'array':
          return { type: 'array', items: schema(depth + 1) };
        case 'tuple':
          return { type: 'array', prefixItems: [schema(depth + 1), schema(depth + 1)] };
        case 'anyOf':
        case 'oneOf':
        case 'allOf':
          return { [kind]: [schema(depth + 1), schema(depth + 1)] };
        case 'nullable':
          return { ...schema(depth + 1), nullable: true };
        case 'ref':
          return { $ref: pick(['#', '#/$defs/Thing', '#/$defs/Missing', 'other.json#/x']) };
        case 'types':
          return { type: ['string', 'number', 'null'].slice(0, 2 + Math.floor(random() * 2)) };
        case 'record':
          return { type: 'object', additionalProperties: schema(depth + 1) };
        case 'empty':
          return {};
        default:
          return { type: kind, ...description };
      }
    };
    let checked = 0;
    for (let round = 0; round < 40; round++) {
      const originals = Array.from({ length: 5 }, (_, i) => ({
        name: `${pick(names)}${i}`,
        description: pick(['Does a thing', 'Weird */ one', '']),
        inputSchema: {
          type: 'object',
          properties: { p: schema(0), q: schema(0) },
          $defs: { Thing: schema(1) },
        },
        ...(random() < 0.5 ? { outputSchema: schema(0) } : {}),
      }));
      // A second copy of some tools (the same server at a second root): shared types and twins.
      const tools = [
        ...originals,
        ...originals
          .filter(() => random() < 0.5)
          .map((tool) => ({ ...tool, name: `b${tool.name}` })),
      ];
      for (const detail of ['full', 'signatures'] as const) {
        const d = generateDeclarations(tools, { detail });
        const diagnostics = checker.checkDeclarations(d.text, d.checkPrelude);
        expect(diagnostics, `round ${round} ${detail}:\n${d.text}`).toEqual([]);
      }
      // Arguments the schema accepts must type-check.
      const d = generateDeclarations(tools);
      const calls = d.bindings.flatMap(({ identifier }, i) => {
        const value = sampleValue(tools[i]!.inputSchema, tools[i]!.inputSchema);
        return accepts(tools[i]!.inputSchema, value)
          ? [`await ${identifier}(${JSON.stringify(value)});`]
          : [];
      });
      checked += calls.length;
      const rejected = checker.check(calls.join('\n'), d.text, d.checkPrelude);
      expect(rejected, `round ${round}:\n${calls.join('\n')}\n${d.text}`).toEqual([]);
    }
    expect(checked).toBeGreaterThan(50);
  }, 60_000);

  it('produces declarations TypeScript accepts for every real MCP server tool list we captured', async () => {
    const { readFile } = await import('node:fs/promises');
    const fixture = JSON.parse(
      await readFile(new URL('../fixtures/npm-mcp-tools.json', import.meta.url), 'utf8'),
    ) as { tools: CodeModeToolInfo[] };
    for (const detail of ['full', 'compact', 'signatures'] as const) {
      const d = generateDeclarations(fixture.tools, { detail });
      expect(checker.checkDeclarations(d.text, d.checkPrelude), detail).toEqual([]);
    }
    // Every call with arguments the server would accept must type-check (no false rejections).
    const d = generateDeclarations(fixture.tools);
    const calls = d.bindings.map(({ identifier }, i) => {
      const tool = fixture.tools[i]!;
      const value = sampleValue(tool.inputSchema, tool.inputSchema);
      expect(accepts(tool.inputSchema, value), tool.name).toBe(true);
      return `await ${identifier}(${JSON.stringify(value)});`;
    });
    expect(checker.check(calls.join('\n'), d.text, d.checkPrelude)).toEqual([]);
  });

  it('declares a shape several tools share once, and a second root of a server as typeof', () => {
    const read = {
      name: 'fs__read',
      description: 'Read a file',
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          head: { type: 'number' },
          tail: { type: 'number' },
        },
        required: ['path'],
      },
      outputSchema: {
        type: 'object',
        properties: { content: { type: 'string' } },
        required: ['content'],
      },
    };
    const list = {
      ...read,
      name: 'fs__list',
      description: 'List a directory',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    };
    const readText = { ...read, name: 'fs__read_text', description: 'Read a text file' };
    const tools = [
      read,
      readText,
      list,
      { ...read, name: 'docs__read' },
      { ...list, name: 'docs__list' },
    ];
    const d = generateDeclarations(tools, { detail: 'compact' });
    expect(d.text).toBe(
      [
        'type FsReadInput = { path: string; head?: number; tail?: number };',
        '/** Read a file */',
        'declare function fs__read(input: FsReadInput): Promise<{ content: string }>;',
        '',
        '/** Read a text file */',
        'declare function fs__read_text(input: FsReadInput): Promise<{ content: string }>;',
        '',
        '/** List a directory */',
        'declare function fs__list(input: { path: string }): Promise<{ content: string }>;',
        '',
        'declare const docs__read: typeof fs__read;',
        '',
        'declare const docs__list: typeof fs__list;',
        '',
      ].join('\n'),
    );
    expect(d.bindings.map((b) => b.identifier)).toEqual([
      'fs__read',
      'fs__read_text',
      'fs__list',
      'docs__read',
      'docs__list',
    ]);
    expect(checker.checkDeclarations(d.text, d.checkPrelude)).toEqual([]);
    expect(
      checker.check(
        "await docs__read({ path: 'a' }); await tools.docs__list({ path: 'b' });",
        d.text,
        d.checkPrelude,
      ),
    ).toEqual([]);
    expect(
      checker.check('await docs__read({ pth: 1 });', d.text, d.checkPrelude)[0]?.message,
    ).toMatch(/pth/);
  });
});
