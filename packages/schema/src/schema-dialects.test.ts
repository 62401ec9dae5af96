import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from './json-schema.js';
import { parseToolArguments } from './parse-tool-arguments.js';
import { convertSchema, convertToolSchemas, inlineRefs } from './schema-dialects.js';

const search: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, description: 'What to look for' },
    limit: { type: 'integer', minimum: 1, default: 10 },
    filters: {
      type: 'object',
      properties: {
        tag: { type: 'string' },
        since: { type: 'string', format: 'date-time' },
        site: { type: 'string', format: 'uri' },
      },
    },
  },
  required: ['query'],
};

describe('convertSchema', () => {
  describe('openai-strict', () => {
    it('closes objects, requires every property and makes optionals nullable, reporting each change', () => {
      const result = convertSchema(search, 'openai-strict', { toolName: 'search' });
      expect(result.strict).toBe(true);
      expect(result.schema).toEqual({
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, description: 'What to look for' },
          limit: { type: ['integer', 'null'], minimum: 1 },
          filters: {
            type: ['object', 'null'],
            properties: {
              tag: { type: ['string', 'null'] },
              since: { type: ['string', 'null'], format: 'date-time' },
              site: { type: ['string', 'null'] },
            },
            additionalProperties: false,
            required: ['tag', 'since', 'site'],
          },
        },
        required: ['query', 'limit', 'filters'],
        additionalProperties: false,
      });
      const byPointer = Object.fromEntries(
        result.changes.map((change) => [change.pointer, change]),
      );
      expect(byPointer['/properties/limit']).toMatchObject({
        toolName: 'search',
        action: 'changed',
        message: expect.stringContaining('nullable'),
      });
      expect(byPointer['/properties/limit/default']).toMatchObject({ action: 'removed' });
      expect(byPointer['/properties/filters/properties/site/format']).toMatchObject({
        action: 'removed',
        message: expect.stringContaining('uri'),
      });
      expect(byPointer['/additionalProperties']).toMatchObject({ action: 'added' });
      expect(byPointer['/$schema']).toMatchObject({ action: 'removed' });
    });

    it('round-trips: what a strict model sends validates against the original after null-to-absent', () => {
      const strict = convertSchema(search, 'openai-strict').schema;
      const modelOutput = {
        query: 'mcp',
        limit: null,
        filters: { tag: 'ts', since: null, site: null },
      };
      const parsed = parseToolArguments(search, JSON.stringify(modelOutput), {
        nullMeansAbsent: true,
      });
      expect(parsed).toMatchObject({
        success: true,
        value: { query: 'mcp', filters: { tag: 'ts' } },
      });
      // and the strict schema itself accepts what the model sent
      expect(parseToolArguments(strict, modelOutput).success).toBe(true);
    });

    it('falls back to non-strict for free-form objects, saying why', () => {
      const schema: JsonSchema = {
        type: 'object',
        properties: { metadata: { type: 'object', additionalProperties: { type: 'string' } } },
      };
      const result = convertSchema(schema, 'openai-strict', { toolName: 'tag' });
      expect(result.strict).toBe(false);
      expect(result.schema).toEqual(schema);
      expect(result.changes).toEqual([
        expect.objectContaining({
          toolName: 'tag',
          action: 'fallback',
          message: expect.stringContaining('/properties/metadata'),
        }),
      ]);
    });

    it('turns oneOf into anyOf and merges allOf of objects', () => {
      const schema: JsonSchema = {
        type: 'object',
        properties: {
          value: { oneOf: [{ type: 'string' }, { type: 'number' }] },
          both: {
            allOf: [
              { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
              { type: 'object', properties: { b: { type: 'number' } } },
            ],
          },
        },
        required: ['value', 'both'],
      };
      const result = convertSchema(schema, 'openai-strict');
      expect(result.strict).toBe(true);
      expect(result.schema.properties!.value).toEqual({
        anyOf: [{ type: 'string' }, { type: 'number' }],
      });
      expect(result.schema.properties!.both).toMatchObject({
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: ['number', 'null'] } },
        required: ['a', 'b'],
        additionalProperties: false,
      });
    });

    it('drops TypeBox symbol metadata and does not modify its input', () => {
      const input = Type.Object({ name: Type.String(), nick: Type.Optional(Type.String()) });
      const before = JSON.stringify(input);
      const result = convertSchema(input, 'openai-strict');
      expect(JSON.stringify(input)).toBe(before);
      expect(Object.getOwnPropertySymbols(result.schema)).toEqual([]);
      expect(result.schema.required).toEqual(['name', 'nick']);
    });
  });

  describe('xai', () => {
    it('removes the keywords xAI rejects, with pointers', () => {
      const schema: JsonSchema = {
        type: 'object',
        properties: {
          tags: {
            type: 'array',
            items: { type: 'string', maxLength: 20, pattern: '^[a-z]+$' },
            minItems: 1,
          },
        },
        additionalProperties: false,
      };
      const result = convertSchema(schema, 'xai', { toolName: 'tagger' });
      expect(result.schema).toEqual({
        type: 'object',
        properties: { tags: { type: 'array', items: { type: 'string' } } },
      });
      expect(result.changes.map((c) => c.pointer).sort()).toEqual([
        '/additionalProperties',
        '/properties/tags/items/maxLength',
        '/properties/tags/items/pattern',
        '/properties/tags/minItems',
      ]);
    });

    it('keeps a property that happens to be named like a removed keyword', () => {
      const schema: JsonSchema = {
        type: 'object',
        properties: { pattern: { type: 'string' } },
        required: ['pattern'],
      };
      expect(convertSchema(schema, 'xai').schema).toEqual(schema);
    });
  });

  describe('anthropic', () => {
    it('merges a root anyOf of object schemas into one object (Anthropic rejects root combinators)', () => {
      const schema: JsonSchema = {
        anyOf: [
          {
            type: 'object',
            properties: { id: { type: 'string' }, by: { const: 'id' } },
            required: ['id', 'by'],
          },
          {
            type: 'object',
            properties: { email: { type: 'string' }, by: { const: 'email' } },
            required: ['email', 'by'],
          },
        ],
      };
      const result = convertSchema(schema, 'anthropic', { toolName: 'find_user' });
      expect(result.schema).toEqual({
        type: 'object',
        properties: { id: { type: 'string' }, by: { const: 'email' }, email: { type: 'string' } },
        required: ['by'],
      });
      expect(result.changes[0]).toMatchObject({ pointer: '/anyOf', action: 'changed' });
    });

    it('adds empty properties for a tool without parameters', () => {
      expect(convertSchema({ type: 'object' }, 'anthropic').schema).toEqual({
        type: 'object',
        properties: {},
      });
    });
  });

  describe('gemini', () => {
    it('inlines $refs and converts const, type arrays and exclusive bounds to its subset', () => {
      const schema: JsonSchema = {
        type: 'object',
        properties: {
          kind: { const: 'point' },
          at: { $ref: '#/$defs/coord' },
          label: { type: ['string', 'null'] },
          weight: { type: 'number', exclusiveMinimum: 0 },
        },
        required: ['kind', 'at'],
        additionalProperties: false,
        $defs: {
          coord: {
            type: 'object',
            properties: { x: { type: 'number' }, y: { type: 'number' } },
            required: ['x', 'y'],
          },
        },
      };
      const result = convertSchema(schema, 'gemini', { toolName: 'plot' });
      expect(result.schema).toEqual({
        type: 'object',
        properties: {
          kind: { type: 'string', enum: ['point'] },
          at: {
            type: 'object',
            properties: { x: { type: 'number' }, y: { type: 'number' } },
            required: ['x', 'y'],
          },
          label: { type: 'string', nullable: true },
          weight: { type: 'number', minimum: 0 },
        },
        required: ['kind', 'at'],
      });
      const pointers = result.changes.map((c) => c.pointer);
      expect(pointers).toEqual(
        expect.arrayContaining([
          '/properties/at/$ref',
          '/$defs',
          '/properties/kind/const',
          '/properties/label/type',
          '/additionalProperties',
        ]),
      );
      expect(result.changes.every((c) => c.toolName === 'plot')).toBe(true);
    });

    it('cuts recursive references and reports them', () => {
      const schema: JsonSchema = {
        type: 'object',
        properties: { root: { $ref: '#/$defs/node' } },
        $defs: {
          node: {
            type: 'object',
            properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } },
          },
        },
      };
      const result = convertSchema(schema, 'gemini');
      expect(result.schema.properties!.root!.properties!.children!.items).toMatchObject({
        type: 'object',
        description: expect.stringContaining('recursive'),
      });
      expect(result.changes.some((c) => c.message.includes('recursive'))).toBe(true);
    });

    it('removes siblings of anyOf, which Gemini rejects', () => {
      const schema: JsonSchema = {
        type: 'object',
        properties: {
          v: {
            anyOf: [{ type: 'string' }, { type: 'integer' }],
            default: 'x',
            description: 'a value',
          },
        },
      };
      const result = convertSchema(schema, 'gemini');
      expect(result.schema.properties!.v).toEqual({
        anyOf: [{ type: 'string' }, { type: 'integer' }],
        description: 'a value',
      });
    });
  });
});

describe('convertToolSchemas', () => {
  it('converts every tool and tags changes with the tool name', () => {
    const result = convertToolSchemas(
      [
        {
          name: 'a',
          description: 'first tool here',
          inputSchema: { type: 'object', properties: { x: { type: 'string' } } },
        },
        {
          name: 'b',
          description: 'second tool here',
          inputSchema: { type: 'object', properties: { y: { type: 'object' } } },
        },
      ],
      'openai-strict',
    );
    expect(result.tools.map((t) => t.strict)).toEqual([true, false]);
    expect(new Set(result.changes.map((c) => c.toolName))).toEqual(new Set(['a', 'b']));
  });
});

describe('inlineRefs', () => {
  it('supports draft-07 definitions and drops unresolvable refs with a report', () => {
    const changes: string[] = [];
    const out = inlineRefs(
      {
        type: 'object',
        properties: { a: { $ref: '#/definitions/s' }, b: { $ref: 'https://example.com/x' } },
        definitions: { s: { type: 'string' } },
      },
      (pointer, action) => changes.push(`${action} ${pointer}`),
    );
    expect(out).toEqual({ type: 'object', properties: { a: { type: 'string' }, b: {} } });
    expect(changes).toEqual([
      'inlined /properties/a/$ref',
      'removed /properties/b/$ref',
      'removed /definitions',
    ]);
  });
});
