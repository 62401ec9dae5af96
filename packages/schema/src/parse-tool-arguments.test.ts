import { describe, expect, it } from 'vitest';
import type { JsonSchema } from './json-schema.js';
import { parseToolArguments, scanJsonPrefix } from './parse-tool-arguments.js';

const weather: JsonSchema = {
  type: 'object',
  properties: {
    location: { type: 'string' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1 },
  },
  required: ['location'],
  additionalProperties: false,
};

function failure(result: ReturnType<typeof parseToolArguments>) {
  if (result.success) throw new Error(`expected failure, got ${JSON.stringify(result.value)}`);
  return result.error;
}

describe('parseToolArguments', () => {
  it('parses valid JSON text without reporting a repair', () => {
    const result = parseToolArguments(weather, '{"location":"Boston","unit":"celsius"}');
    expect(result).toEqual({
      success: true,
      value: { location: 'Boston', unit: 'celsius' },
      repaired: false,
      repairs: [],
    });
  });

  it('accepts objects as Anthropic and Ollama send them', () => {
    const result = parseToolArguments(weather, { location: 'Paris' });
    expect(result.success && result.value).toEqual({ location: 'Paris' });
  });

  it('treats empty text as {} for tools without parameters', () => {
    const result = parseToolArguments({ type: 'object', properties: {} }, '');
    expect(result.success).toBe(true);
    expect(result.success && result.repairs).toEqual(['empty arguments treated as {}']);
  });

  it.each([
    ['single quotes', "{'location': 'Boston'}"],
    ['trailing comma', '{"location": "Boston",}'],
    ['unquoted key', '{location: "Boston"}'],
    ['a comment', '{"location": "Boston" /* the city */}'],
    ['a markdown fence', '```json\n{"location": "Boston"}\n```'],
  ])('repairs %s and reports that it did', (_label, text) => {
    const result = parseToolArguments(weather, text);
    expect(result.success).toBe(true);
    if (result.success) {
      expect(result.value).toEqual({ location: 'Boston' });
      expect(result.repaired).toBe(true);
      expect(result.repairs[0]).toMatch(/^repaired malformed JSON/);
    }
  });

  it('closes missing braces when the last value is complete', () => {
    const result = parseToolArguments(weather, '{"location": "Boston"');
    expect(result).toMatchObject({
      success: true,
      value: { location: 'Boston' },
      repaired: true,
      repairs: ['closed unclosed brackets'],
    });
  });

  it('reports truncation instead of repairing when text ends inside a string', () => {
    const error = failure(parseToolArguments(weather, '{"location": "Bos'));
    expect(error.problem).toBe('truncated');
    expect(error.code).toBe('tool_arguments_truncated');
    expect(error.message).toMatch(/truncated/);
    expect(error.rawArguments).toBe('{"location": "Bos');
  });

  it('reports truncation when text ends after a colon or comma', () => {
    expect(failure(parseToolArguments(weather, '{"location":')).problem).toBe('truncated');
    expect(failure(parseToolArguments(weather, '{"location": "Boston",')).problem).toBe(
      'truncated',
    );
  });

  it('treats any incomplete JSON as truncated when the provider said output hit the limit', () => {
    expect(
      failure(parseToolArguments(weather, '{"location": "Boston"', { outputTruncated: true }))
        .problem,
    ).toBe('truncated');
  });

  it('reports malformed JSON that cannot be repaired, never coercing it to {}', () => {
    const error = failure(parseToolArguments(weather, '}{ not json at all ]['));
    expect(error.problem).toBe('malformed');
    expect(error.message).toMatch(/not valid JSON/);
  });

  it('unwraps an object that was JSON-encoded twice', () => {
    const result = parseToolArguments(
      weather,
      JSON.stringify(JSON.stringify({ location: 'Oslo' })),
    );
    expect(result).toMatchObject({
      success: true,
      value: { location: 'Oslo' },
      repairs: ['unwrapped a JSON object that was encoded as a string'],
    });
  });

  it('rejects non-object arguments', () => {
    const error = failure(parseToolArguments(weather, '[1,2]'));
    expect(error.problem).toBe('invalid');
    expect(error.issues[0]).toMatchObject({ pointer: '', expected: 'object' });
  });

  it('names the JSON pointer and expectation of every schema violation', () => {
    const error = failure(
      parseToolArguments(weather, { location: 7, unit: 'kelvin', days: 0, extra: true }),
    );
    expect(error.problem).toBe('invalid');
    const byPointer = Object.fromEntries(error.issues.map((issue) => [issue.pointer, issue]));
    expect(byPointer['/location']).toMatchObject({ message: 'must be string', expected: 'string' });
    expect(byPointer['/unit']).toMatchObject({ message: 'must be one of "celsius", "fahrenheit"' });
    expect(byPointer['/days']?.message).toMatch(/>= 1/);
    expect(byPointer['/extra']).toMatchObject({ message: 'is not an allowed property' });
    expect(error.message).toContain('/location: must be string');
  });

  it('reports a missing required property at its own pointer', () => {
    const error = failure(parseToolArguments(weather, {}, { toolName: 'get_weather' }));
    expect(error.issues).toEqual([
      { pointer: '/location', message: 'is required but missing', expected: 'a value' },
    ]);
    expect(error.message).toMatch(/^Invalid arguments for tool "get_weather"/);
  });

  it('maps null back to absent for optionals when asked (OpenAI strict round trip)', () => {
    const result = parseToolArguments(weather, '{"location":"Rome","unit":null,"days":null}', {
      nullMeansAbsent: true,
    });
    expect(result).toMatchObject({ success: true, value: { location: 'Rome' } });
    expect(result.success && result.repairs[0]).toBe('null read as absent at /unit, /days');
  });

  it('keeps null where the original schema accepts it', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { note: { type: ['string', 'null'] } },
    };
    const result = parseToolArguments(schema, { note: null }, { nullMeansAbsent: true });
    expect(result.success && result.value).toEqual({ note: null });
  });

  it('without nullMeansAbsent, a null optional is a validation error', () => {
    expect(
      failure(parseToolArguments(weather, { location: 'Rome', unit: null })).issues[0]?.pointer,
    ).toBe('/unit');
  });
});

describe('scanJsonPrefix', () => {
  it('tells balanced, slip and cut-off apart', () => {
    expect(scanJsonPrefix('{"a":1}')).toEqual({ kind: 'balanced' });
    expect(scanJsonPrefix('{"a":[1,2]')).toMatchObject({
      kind: 'incomplete',
      onlyClosersMissing: true,
    });
    expect(scanJsonPrefix('{"a":tr')).toMatchObject({
      kind: 'incomplete',
      onlyClosersMissing: false,
      reason: 'inside a literal',
    });
    expect(scanJsonPrefix('{"a":"x\\"')).toMatchObject({
      kind: 'incomplete',
      reason: 'inside a string',
    });
  });
});
