// The JSON Schema backend that generates no code: @cfworker/json-schema walks the schema for each
// value (what the MCP SDK uses in browsers and Cloudflare Workers). `#compile-schema` resolves here
// under the `workerd`, `worker`, `browser` and `edge-light` conditions; compile-schema-ajv.ts falls
// back to it where code generation is refused at run time. Its issues read like ajv's
// (schema-issues.ts), so a message does not depend on where the code runs.
import { Validator, type OutputUnit } from '@cfworker/json-schema';
import type { Issue } from './errors.js';
import type { JsonSchema } from './json-schema.js';
import {
  constIssue,
  dialectOf,
  enumIssue,
  notAllowedIssue,
  requiredIssue,
  typeIssue,
  type SchemaCheck,
} from './schema-issues.js';

// Units that only say "a part below failed"; the parts are reported on their own.
const WRAPPERS = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  '$ref',
  '$recursiveRef',
  '$dynamicRef',
  'allOf',
  'then',
  'else',
  'dependentSchemas',
]);

export function compileSchema(schema: JsonSchema): SchemaCheck {
  checkCompiles(schema);
  const validator = new Validator(schema as never, dialectOf(schema), false);
  return (value) => {
    const result = validator.validate(value);
    if (result.valid) return undefined;
    const issues: Issue[] = [];
    let previous: OutputUnit | undefined;
    for (const unit of result.errors) {
      if (!WRAPPERS.has(unit.keyword)) issues.push(issueFromUnit(unit, previous, schema));
      previous = unit;
    }
    return issues;
  };
}

function issueFromUnit(
  unit: OutputUnit,
  previous: OutputUnit | undefined,
  root: JsonSchema,
): Issue {
  const pointer = decodeURI(unit.instanceLocation.slice(1));
  const text = unit.error;
  const limit = keywordValue(root, unit.keywordLocation);
  switch (unit.keyword) {
    case 'required':
      return requiredIssue(pointer, /required property "(.*)"\.$/.exec(text)?.[1] ?? '');
    case 'false':
      return previous?.keyword === 'additionalProperties' ||
        previous?.keyword === 'unevaluatedProperties'
        ? notAllowedIssue(pointer)
        : { pointer, message: 'boolean schema is false', expected: 'false schema' };
    case 'type':
      return typeIssue(pointer, (/Expected "(.*)"\.$/.exec(text)?.[1] ?? '').split('", "'));
    case 'enum':
      return enumIssue(pointer, JSON.parse(/any of (.*)\.$/s.exec(text)?.[1] ?? '[]') as unknown[]);
    case 'const':
      return constIssue(pointer, JSON.parse(/does not match (.*)\.$/s.exec(text)?.[1] ?? 'null'));
    case 'format':
      return {
        pointer,
        message: `must match format "${/format "(.*)"\.$/.exec(text)?.[1] ?? ''}"`,
        expected: 'format',
      };
    case 'anyOf':
      return { pointer, message: 'must match a schema in anyOf', expected: 'anyOf' };
    case 'oneOf':
      return { pointer, message: 'must match exactly one schema in oneOf', expected: 'oneOf' };
  }
  const wording = limit === undefined ? undefined : LIMITS[unit.keyword]?.(limit);
  return { pointer, message: wording ?? text, expected: unit.keyword };
}

// ajv's wording for the keywords with a limit.
const LIMITS: Record<string, (limit: unknown) => string> = {
  minimum: (limit) => `must be >= ${String(limit)}`,
  maximum: (limit) => `must be <= ${String(limit)}`,
  exclusiveMinimum: (limit) => `must be > ${String(limit)}`,
  exclusiveMaximum: (limit) => `must be < ${String(limit)}`,
  multipleOf: (limit) => `must be multiple of ${String(limit)}`,
  minLength: (limit) => `must NOT have fewer than ${String(limit)} characters`,
  maxLength: (limit) => `must NOT have more than ${String(limit)} characters`,
  minItems: (limit) => `must NOT have fewer than ${String(limit)} items`,
  maxItems: (limit) => `must NOT have more than ${String(limit)} items`,
  minProperties: (limit) => `must NOT have fewer than ${String(limit)} properties`,
  maxProperties: (limit) => `must NOT have more than ${String(limit)} properties`,
  pattern: (limit) => `must match pattern "${String(limit)}"`,
};

/** The keyword's value in the root schema, when its location does not pass through a `$ref`. */
function keywordValue(root: JsonSchema, location: string): unknown {
  let node: unknown = root;
  for (const segment of location.slice(2).split('/')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[
      decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~')
    ];
  }
  return typeof node === 'object' ? undefined : node;
}

/**
 * What ajv rejects when it compiles, the walking validator only meets while validating: a pattern
 * that is not a regular expression, a local `$ref` that points nowhere. Checked up front, so that a
 * broken schema fails at definition time on every runtime.
 */
function checkCompiles(root: JsonSchema): void {
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    const record = node as Record<string, unknown>;
    if (typeof record.pattern === 'string') new RegExp(record.pattern, 'u');
    if (record.patternProperties !== null && typeof record.patternProperties === 'object')
      for (const pattern of Object.keys(record.patternProperties)) new RegExp(pattern, 'u');
    if (typeof record.$ref === 'string' && record.$ref.startsWith('#/')) {
      let target: unknown = root;
      for (const segment of record.$ref.slice(2).split('/')) {
        const key = decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');
        if (target === null || typeof target !== 'object' || !(key in target))
          throw new Error(`can't resolve reference ${record.$ref}`);
        target = (target as Record<string, unknown>)[key];
      }
    }
    for (const [key, value] of Object.entries(record)) {
      // `const`, `enum`, `default` and `examples` hold data, not schemas.
      if (key !== 'const' && key !== 'enum' && key !== 'default' && key !== 'examples')
        visit(value);
    }
  };
  visit(root);
}
