import { describe, expect, it } from 'vitest';
import type { JsonSchema } from './json-schema.js';
import { inlineRefs, normalizeToolSchema, normalizeToolSchemas } from './normalize-tool-schema.js';

describe('normalizeToolSchema', () => {
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
    const result = normalizeToolSchema(schema, { toolName: 'find_user' });
    expect(result.schema).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, by: { const: 'email' }, email: { type: 'string' } },
      required: ['by'],
    });
    expect(result.changes[0]).toMatchObject({ pointer: '/anyOf', action: 'changed' });
  });

  it('adds empty properties for a tool without parameters', () => {
    expect(normalizeToolSchema({ type: 'object' }).schema).toEqual({
      type: 'object',
      properties: {},
    });
  });

  it('removes annotation-only keywords and does not modify its input', () => {
    const input: JsonSchema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:x',
      type: 'object',
      properties: { a: { type: 'string' } },
    };
    const before = JSON.stringify(input);
    const result = normalizeToolSchema(input, { toolName: 'x' });
    expect(result.schema).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
    expect(result.changes.map((c) => `${c.action} ${c.pointer}`)).toEqual([
      'removed /$schema',
      'removed /$id',
    ]);
    expect(JSON.stringify(input)).toBe(before);
  });
});

describe('normalizeToolSchemas', () => {
  it('converts every tool and tags changes with the tool name', () => {
    const result = normalizeToolSchemas([
      { name: 'a', description: 'first tool here', inputSchema: { type: 'object' } },
      { name: 'b', description: 'second tool here', inputSchema: { properties: {} } },
    ]);
    expect(result.tools.map((t) => t.inputSchema)).toEqual([
      { type: 'object', properties: {} },
      { type: 'object', properties: {} },
    ]);
    expect(result.changes.map((c) => c.toolName)).toEqual(['a', 'b']);
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
