import { parseToolArguments, type JsonSchema } from '@toolwire/schema';
import { describe, expect, it } from 'vitest';
import { convertToOpenAISchema } from './openai-schema-dialect.js';

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

describe("convertToOpenAISchema 'openai-strict'", () => {
  it('closes objects, requires every property and makes optionals nullable, reporting each change', () => {
    const result = convertToOpenAISchema(search, 'openai-strict', { toolName: 'search' });
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
    const byPointer = Object.fromEntries(result.changes.map((change) => [change.pointer, change]));
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
    const strict = convertToOpenAISchema(search, 'openai-strict').schema;
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
    const result = convertToOpenAISchema(schema, 'openai-strict', { toolName: 'tag' });
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
    const result = convertToOpenAISchema(schema, 'openai-strict');
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

  it('drops symbol-keyed metadata (TypeBox schemas carry it) and does not modify its input', () => {
    const kind = Symbol.for('TypeBox.Kind');
    const input = {
      [kind]: 'Object',
      type: 'object',
      properties: { name: { [kind]: 'String', type: 'string' }, nick: { type: 'string' } },
      required: ['name'],
    } as JsonSchema;
    const before = JSON.stringify(input);
    const result = convertToOpenAISchema(input, 'openai-strict');
    expect(JSON.stringify(input)).toBe(before);
    expect(Object.getOwnPropertySymbols(result.schema)).toEqual([]);
    expect(Object.getOwnPropertySymbols(result.schema.properties!.name!)).toEqual([]);
    expect(result.schema.required).toEqual(['name', 'nick']);
  });
});

describe("convertToOpenAISchema 'xai'", () => {
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
    const result = convertToOpenAISchema(schema, 'xai', { toolName: 'tagger' });
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
    expect(convertToOpenAISchema(schema, 'xai').schema).toEqual(schema);
  });
});
