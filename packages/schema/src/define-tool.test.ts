import { Type } from '@sinclair/typebox';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  defineTool,
  TEXT_INPUT_SCHEMA,
  toToolSpec,
  validateToolDefinition,
} from './define-tool.js';
import { InvalidToolDefinitionError } from './errors.js';
import { ToolwireError } from './toolwire-error.js';

const weatherInput = Type.Object({
  location: Type.String({ description: 'City name' }),
  unit: Type.Optional(Type.Union([Type.Literal('celsius'), Type.Literal('fahrenheit')])),
});

describe('defineTool', () => {
  it('infers argument and output types from TypeBox schemas', async () => {
    const tool = defineTool({
      name: 'get_weather',
      description: 'Get current weather for a location',
      inputSchema: weatherInput,
      outputSchema: Type.Object({ celsius: Type.Number() }),
      execute: async (args) => {
        expectTypeOf(args.location).toEqualTypeOf<string>();
        expectTypeOf(args.unit).toEqualTypeOf<'celsius' | 'fahrenheit' | undefined>();
        return { celsius: 21 };
      },
    });
    expectTypeOf(tool.execute)
      .parameter(0)
      .toEqualTypeOf<{ location: string; unit?: 'celsius' | 'fahrenheit' }>();
    const output = await tool.execute!(
      { location: 'Boston' },
      { toolCallId: 'c1', signal: new AbortController().signal },
    );
    expect(output).toEqual({ celsius: 21 });
    expect(tool.inputSchema.required).toEqual(['location']);
    expect(tool.definitionIssues).toEqual([]);
  });

  it('accepts raw JSON Schema in draft-07 and draft 2020-12', () => {
    const draft07 = defineTool({
      name: 'hash',
      description: 'Generate cryptographic hashes and encode data',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: {
          data: { type: 'string' },
          algorithm: { type: 'string', enum: ['sha256', 'md5', 'base64'] },
        },
        required: ['data', 'algorithm'],
        definitions: { unused: { type: 'string' } },
      },
    });
    const draft2020 = defineTool({
      name: 'lookup',
      description: 'Look up an item by its identifier',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { item: { $ref: '#/$defs/id' } },
        required: ['item'],
        $defs: { id: { type: 'string', minLength: 1 } },
      },
    });
    expect(draft07.name).toBe('hash');
    expect(draft2020.definitionIssues).toEqual([]);
  });

  it('rejects names that are not snake_case, as the seed requires', () => {
    for (const name of ['GetWeather', 'get weather', '', '1tool', 'get-weather']) {
      expect(() =>
        defineTool({
          name,
          description: 'A tool with a bad name',
          inputSchema: { type: 'object', properties: {} },
        }),
      ).toThrow(InvalidToolDefinitionError);
    }
  });

  it('rejects descriptions shorter than 10 or longer than 500 characters', () => {
    const make = (description: string) => () =>
      defineTool({ name: 'ok_name', description, inputSchema: { type: 'object', properties: {} } });
    expect(make('short')).toThrow(/description is 5 characters/);
    expect(make('x'.repeat(501))).toThrow(/description is 501 characters/);
    expect(make('x'.repeat(10))).not.toThrow();
  });

  it('rejects required names missing from properties, naming the pointer', () => {
    try {
      defineTool({
        name: 'get_weather',
        description: 'Get current weather for a location',
        inputSchema: {
          type: 'object',
          properties: { location: { type: 'string' } },
          required: ['location', 'unit'],
        },
      });
      expect.unreachable();
    } catch (error) {
      expect(ToolwireError.isInstance(error)).toBe(true);
      const e = error as InvalidToolDefinitionError;
      expect(e.code).toBe('invalid_tool_definition');
      expect(e.issues).toEqual([
        expect.objectContaining({
          pointer: '/inputSchema/required/1',
          message: 'required property "unit" is not defined in properties',
        }),
      ]);
    }
  });

  it('rejects schemas nested deeper than 10 levels', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 12; i++) schema = { type: 'object', properties: { child: schema } };
    expect(() =>
      defineTool({
        name: 'deep_tool',
        description: 'A tool with a deep schema',
        inputSchema: schema,
      }),
    ).toThrow(/maximum depth of 10/);
  });

  it('rejects an input schema that is not an object schema or does not compile', () => {
    expect(() =>
      defineTool({
        name: 'bad_root',
        description: 'Root is a string schema',
        inputSchema: { type: 'string' },
      }),
    ).toThrow(/must have type "object"/);
    expect(() =>
      defineTool({
        name: 'bad_ref',
        description: 'References a missing definition',
        inputSchema: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
      }),
    ).toThrow(/does not compile/);
  });

  it('keeps foreign tools in lenient mode and reports their problems', () => {
    const tool = defineTool(
      {
        name: 'read-file.v2',
        description: 'Reads',
        inputSchema: { type: 'object', properties: {}, required: ['path'] },
      },
      { mode: 'lenient' },
    );
    expect(tool.definitionIssues!.map((issue) => issue.pointer)).toEqual([
      '/name',
      '/description',
      '/inputSchema/required/0',
    ]);
  });

  it('accepts provider-safe names with hyphens and capitals in lenient mode', () => {
    const issues = validateToolDefinition(
      {
        name: 'Get-Weather_2',
        description: 'Get current weather for a location',
        inputSchema: { type: 'object', properties: {} },
      },
      { mode: 'lenient' },
    );
    expect(issues).toEqual([]);
  });

  it('keeps deferral, input examples, callers and a text input format, checking each', () => {
    const tool = defineTool({
      name: 'run_sql',
      description: 'Run a read-only SQL query',
      inputSchema: TEXT_INPUT_SCHEMA,
      inputFormat: { type: 'grammar', syntax: 'regex', definition: '^SELECT .+$' },
      inputExamples: [{ input: 'SELECT 1' }],
      allowedCallers: ['direct', 'programmatic'],
      deferred: true,
    });
    expect(toToolSpec(tool)).toEqual({
      name: 'run_sql',
      description: 'Run a read-only SQL query',
      inputSchema: TEXT_INPUT_SCHEMA,
      inputFormat: { type: 'grammar', syntax: 'regex', definition: '^SELECT .+$' },
      inputExamples: [{ input: 'SELECT 1' }],
      allowedCallers: ['direct', 'programmatic'],
      deferred: true,
    });
    const issues = validateToolDefinition({
      name: 'get_weather',
      description: 'Current weather for a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      inputExamples: [{ city: 'Oslo' }, { town: 'Rome' }],
      allowedCallers: ['robot' as never],
      inputFormat: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' },
    });
    expect(issues.map((issue) => issue.pointer)).toEqual([
      '/inputExamples/1',
      '/allowedCallers',
      '/inputSchema',
    ]);
    expect(issues[0]!.message).toMatch(/example 1 does not match the input schema: .*city/);
  });
});
