// `#compile-schema` is ajv where the runtime may generate code and @cfworker/json-schema in
// browsers and workers (package.json `imports`; see compile-schema-ajv.ts).
import { compileSchema } from '#compile-schema';
import type { Issue } from './errors.js';
import type { JsonSchema } from './json-schema.js';
import type { SchemaCheck } from './schema-issues.js';

export type ValidationResult<T = unknown> =
  { success: true; value: T } | { success: false; issues: Issue[] };

export interface SchemaValidator<T = unknown> {
  readonly schema: JsonSchema;
  validate(value: unknown): ValidationResult<T>;
}

// Compiled once per schema object; schemas are treated as immutable once handed to us.
const cache = new WeakMap<object, SchemaValidator>();

export class SchemaCompileError extends Error {}

function validatorOf<T>(schema: JsonSchema, check: SchemaCheck): SchemaValidator<T> {
  const validator: SchemaValidator<T> = {
    schema,
    validate(value) {
      const issues = check(value);
      return issues ? { success: false, issues } : { success: true, value: value as T };
    },
  };
  cache.set(schema, validator);
  return validator;
}

/**
 * A validator for one JSON Schema, compiled once and cached by schema identity.
 * Throws `SchemaCompileError` when the schema itself is broken (an unresolvable `$ref`, a bad regex).
 */
export function getSchemaValidator<T = unknown>(schema: JsonSchema): SchemaValidator<T> {
  const cached = cache.get(schema);
  if (cached) return cached as SchemaValidator<T>;
  let check: SchemaCheck;
  try {
    // `$id`s would clash across schemas in the shared ajv instance; drop the top-level one.
    const { $id: _ignored, ...rest } = schema;
    check = compileSchema(rest);
  } catch (error) {
    throw new SchemaCompileError(`Schema does not compile: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return validatorOf<T>(schema, check);
}

/** Validates `value` against `schema` (compiled and cached). */
export function validateAgainstSchema<T = unknown>(
  schema: JsonSchema,
  value: unknown,
): ValidationResult<T> {
  return getSchemaValidator<T>(schema).validate(value);
}
