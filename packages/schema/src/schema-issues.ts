// What the two JSON Schema backends (compile-schema-ajv.ts, compile-schema-cfworker.ts) share: the
// signature of a compiled check and the wording of the issues, so a message reads the same
// whichever backend the runtime selected.
import type { Issue } from './errors.js';
import type { JsonSchema } from './json-schema.js';

/** A compiled schema: `undefined` when the value is valid, else what is wrong with it. */
export type SchemaCheck = (value: unknown) => Issue[] | undefined;

/** One JSON pointer segment (RFC 6901: `~` and `/` escaped). */
function pointerSegment(property: string): string {
  return property.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function requiredIssue(pointer: string, property: string): Issue {
  return {
    pointer: `${pointer}/${pointerSegment(property)}`,
    message: 'is required but missing',
    expected: 'a value',
  };
}

/** `pointer` is the property itself. */
export function notAllowedIssue(pointer: string): Issue {
  return { pointer, message: 'is not an allowed property', expected: 'no such property' };
}

/** `types` as the schema spells them, e.g. ['string', 'null']. */
export function typeIssue(pointer: string, types: readonly string[]): Issue {
  const expected = types.join(',');
  return { pointer, message: `must be ${expected}`, expected };
}

export function enumIssue(pointer: string, allowed: readonly unknown[]): Issue {
  const expected = allowed.map((value) => JSON.stringify(value)).join(', ');
  return { pointer, message: `must be one of ${expected}`, expected };
}

export function constIssue(pointer: string, allowed: unknown): Issue {
  const expected = JSON.stringify(allowed);
  return { pointer, message: `must be ${expected}`, expected };
}

/** The dialect a schema declares; 2020-12 when it declares none (MCP's default). */
export function dialectOf(schema: JsonSchema): '4' | '7' | '2019-09' | '2020-12' {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (/draft-04/.test(dialect)) return '4';
  if (/draft-0[67]/.test(dialect)) return '7';
  if (/2019-09/.test(dialect)) return '2019-09';
  return '2020-12';
}

/** The parts of an ajv error that issues are made of (ajv's own type would pull ajv in). */
export interface AjvError {
  keyword: string;
  instancePath: string;
  params: object;
  message?: string;
}

/** One ajv error as an issue (from ajv at run time, or a validator generated at build time). */
export function issueFromAjv(error: AjvError): Issue {
  const params = error.params as Record<string, unknown>;
  const pointer = error.instancePath;
  switch (error.keyword) {
    case 'required':
      return requiredIssue(pointer, String(params.missingProperty));
    case 'additionalProperties':
      return notAllowedIssue(`${pointer}/${pointerSegment(String(params.additionalProperty))}`);
    case 'type':
      return typeIssue(pointer, String(params.type).split(','));
    case 'enum':
      return enumIssue(pointer, params.allowedValues as unknown[]);
    case 'const':
      return constIssue(pointer, params.allowedValue);
    default:
      return {
        pointer,
        message: error.message ?? `fails ${error.keyword}`,
        expected: error.keyword,
      };
  }
}
