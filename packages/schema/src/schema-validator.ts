import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { SchemaCompileError, type Issue } from './errors.js';
import type { JsonSchema } from './json-schema.js';

// ajv-formats is CommonJS; under some loaders the function sits on `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv) => Ajv;

export type ValidationResult<T = unknown> =
  { success: true; value: T } | { success: false; issues: Issue[] };

export interface SchemaValidator<T = unknown> {
  readonly schema: JsonSchema;
  validate(value: unknown): ValidationResult<T>;
}

function createAjv<T extends Ajv>(AjvClass: new (options: object) => T): T {
  const ajv = new AjvClass({
    // Foreign (MCP) schemas carry keywords ajv does not know; they must not fail compilation.
    strict: false,
    allErrors: true,
    validateFormats: true,
    // Tools receive what the model sent; nothing is coerced or defaulted silently.
    coerceTypes: false,
    useDefaults: false,
  });
  addFormats(ajv);
  return ajv;
}

let ajv2020: Ajv2020 | undefined;
let ajv07: Ajv | undefined;

function ajvFor(schema: JsonSchema): Ajv {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (/draft-0[4-7]/.test(dialect)) {
    ajv07 ??= createAjv(Ajv);
    return ajv07;
  }
  ajv2020 ??= createAjv(Ajv2020);
  return ajv2020;
}

// Compiled once per schema object; schemas are treated as immutable once handed to us.
const cache = new WeakMap<object, SchemaValidator>();

export { SchemaCompileError };

/**
 * A validator for one JSON Schema, compiled once and cached by schema identity.
 * Throws `SchemaCompileError` when the schema itself is broken (an unresolvable `$ref`, a bad regex).
 */
export function getSchemaValidator<T = unknown>(schema: JsonSchema): SchemaValidator<T> {
  const cached = cache.get(schema);
  if (cached) return cached as SchemaValidator<T>;
  let compiled: ValidateFunction;
  try {
    // `$id`s would clash across schemas in the shared ajv instance; drop the top-level one.
    const { $id: _ignored, ...rest } = schema;
    compiled = ajvFor(schema).compile(rest);
  } catch (error) {
    throw new SchemaCompileError(`Schema does not compile: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const validator: SchemaValidator<T> = {
    schema,
    validate(value) {
      if (compiled(value)) return { success: true, value: value as T };
      return { success: false, issues: (compiled.errors ?? []).map(issueFromAjv) };
    },
  };
  cache.set(schema, validator);
  return validator;
}

/** Validates `value` against `schema` (compiled and cached). */
export function validateAgainstSchema<T = unknown>(
  schema: JsonSchema,
  value: unknown,
): ValidationResult<T> {
  return getSchemaValidator<T>(schema).validate(value);
}

function issueFromAjv(error: ErrorObject): Issue {
  const params = error.params as Record<string, unknown>;
  const pointer = error.instancePath;
  switch (error.keyword) {
    case 'required': {
      const property = String(params.missingProperty);
      return {
        pointer: `${pointer}/${property.replace(/~/g, '~0').replace(/\//g, '~1')}`,
        message: `is required but missing`,
        expected: 'a value',
      };
    }
    case 'additionalProperties': {
      const property = String(params.additionalProperty);
      return {
        pointer: `${pointer}/${property.replace(/~/g, '~0').replace(/\//g, '~1')}`,
        message: `is not an allowed property`,
        expected: 'no such property',
      };
    }
    case 'type':
      return { pointer, message: `must be ${String(params.type)}`, expected: String(params.type) };
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ');
      return { pointer, message: `must be one of ${allowed}`, expected: allowed };
    }
    case 'const':
      return {
        pointer,
        message: `must be ${JSON.stringify(params.allowedValue)}`,
        expected: JSON.stringify(params.allowedValue),
      };
    default:
      return {
        pointer,
        message: error.message ?? `fails ${error.keyword}`,
        expected: error.keyword,
      };
  }
}
