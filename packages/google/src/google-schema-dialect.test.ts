import type { JsonSchema } from '@toolwire/schema';
import { describe, expect, it } from 'vitest';
import { convertToGoogleSchema } from './google-schema-dialect.js';

describe('convertToGoogleSchema', () => {
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
    const result = convertToGoogleSchema(schema, { toolName: 'plot' });
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
    const result = convertToGoogleSchema(schema);
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
    const result = convertToGoogleSchema(schema);
    expect(result.schema.properties!.v).toEqual({
      anyOf: [{ type: 'string' }, { type: 'integer' }],
      description: 'a value',
    });
  });
});
