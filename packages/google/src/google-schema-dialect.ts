import {
  inlineRefs,
  isObjectSchema,
  isPlainObject,
  joinPointer,
  mapSubschemas,
  mergeObjectBranches,
  objectRootSchema,
  schemaChangeLog,
  type ConvertedSchema,
  type JsonSchema,
  type SchemaChangeReporter,
} from '@toolwire/schema';

// The OpenAPI 3.0 subset Gemini function declarations accept; everything else is dropped.
const GEMINI_ALLOWED = new Set([
  'type',
  'format',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'anyOf',
  'propertyOrdering',
  'items',
  'minimum',
  'maximum',
  'title',
]);

/**
 * Converts a JSON Schema to the OpenAPI 3.0 subset Gemini function declarations and response
 * schemas accept: `$ref`s inlined (recursion cut), `const` as a one-value enum, type arrays as
 * `nullable` or `anyOf`, no siblings beside `anyOf`, and every keyword outside the subset removed.
 * Each change is reported; the input is not modified.
 */
export function convertToGoogleSchema(
  schema: JsonSchema,
  options: { toolName?: string } = {},
): ConvertedSchema {
  const log = schemaChangeLog(options.toolName);
  const converted = toGemini(
    inlineRefs(objectRootSchema(schema, log.report), log.report),
    '',
    log.report,
  );
  return { schema: converted, changes: log.changes };
}

function toGemini(schema: JsonSchema, pointer: string, report: SchemaChangeReporter): JsonSchema {
  let node: JsonSchema = { ...schema };
  if (node.const !== undefined) {
    report(joinPointer(pointer, 'const'), 'changed', 'const sent as a one-value enum');
    node.enum = [node.const];
    delete node.const;
    if (node.type === undefined && typeof node.enum[0] === 'string') node.type = 'string';
  }
  if (Array.isArray(node.oneOf)) {
    node.anyOf = [...(node.anyOf ?? []), ...node.oneOf];
    delete node.oneOf;
    report(joinPointer(pointer, 'oneOf'), 'changed', 'oneOf sent as anyOf');
  }
  if (Array.isArray(node.allOf)) {
    if (node.allOf.every((b) => isPlainObject(b) && isObjectSchema(b as JsonSchema))) {
      node = mergeObjectBranches(node, 'allOf', (p, a, m) => report(pointer + p, a, m));
    }
  }
  if (Array.isArray(node.type)) {
    const types = node.type.filter((t) => t !== 'null');
    const nullable = types.length !== node.type.length;
    if (types.length === 1) {
      node.type = types[0]!;
      if (nullable) node.nullable = true;
      report(
        joinPointer(pointer, 'type'),
        'changed',
        `type array sent as "${types[0]}"${nullable ? ' with nullable' : ''}`,
      );
    } else {
      const { type: _type, ...rest } = node;
      node = {
        ...(rest.description !== undefined ? { description: rest.description } : {}),
        anyOf: types.map((t) => ({ type: t })),
      };
      if (nullable) node.nullable = true;
      report(joinPointer(pointer, 'type'), 'changed', 'type array sent as anyOf');
    }
  }
  if (Array.isArray(node.anyOf)) {
    // anyOf with siblings (other than a description) rejects the whole request.
    const nonNull = node.anyOf.filter((b) => !(isPlainObject(b) && b.type === 'null'));
    if (nonNull.length !== node.anyOf.length) {
      node.nullable = true;
      node.anyOf = nonNull;
    }
    if (node.anyOf.length === 1 && isPlainObject(node.anyOf[0])) {
      const only = node.anyOf[0] as JsonSchema;
      const { anyOf: _a, ...rest } = node;
      node = {
        ...only,
        ...(rest.description !== undefined ? { description: rest.description } : {}),
        ...(rest.nullable ? { nullable: true } : {}),
      };
    } else {
      for (const key of Object.keys(node)) {
        if (key !== 'anyOf' && key !== 'description' && key !== 'nullable') {
          report(
            joinPointer(pointer, key),
            'removed',
            `removed ${key} beside anyOf (Gemini rejects siblings of anyOf)`,
          );
          delete node[key];
        }
      }
    }
  }
  if (Array.isArray(node.enum)) {
    if (node.enum.every((v) => typeof v === 'string' || v === null)) {
      if (node.enum.includes(null)) {
        node.enum = node.enum.filter((v) => v !== null);
        node.nullable = true;
      }
      node.type ??= 'string';
    } else if (node.enum.every((v) => typeof v === 'number' || typeof v === 'boolean')) {
      report(
        joinPointer(pointer, 'enum'),
        'changed',
        'non-string enum values sent as strings is unsafe; enum removed and listed in the description',
      );
      node.description = `${node.description ? `${node.description} ` : ''}(one of: ${node.enum.map((v) => JSON.stringify(v)).join(', ')})`;
      delete node.enum;
    }
  }
  if (typeof node.format === 'string') {
    const allowed =
      node.type === 'string'
        ? ['enum', 'date-time']
        : node.type === 'integer'
          ? ['int32', 'int64']
          : node.type === 'number'
            ? ['float', 'double']
            : [];
    if (!allowed.includes(node.format)) {
      report(
        joinPointer(pointer, 'format'),
        'removed',
        `removed format "${node.format}" (Gemini accepts only ${allowed.join(', ') || 'none here'})`,
      );
      delete node.format;
    }
  }
  if (
    node.exclusiveMinimum !== undefined &&
    typeof node.exclusiveMinimum === 'number' &&
    node.minimum === undefined
  ) {
    node.minimum = node.exclusiveMinimum;
    report(joinPointer(pointer, 'exclusiveMinimum'), 'changed', 'exclusiveMinimum sent as minimum');
  }
  if (
    node.exclusiveMaximum !== undefined &&
    typeof node.exclusiveMaximum === 'number' &&
    node.maximum === undefined
  ) {
    node.maximum = node.exclusiveMaximum;
    report(joinPointer(pointer, 'exclusiveMaximum'), 'changed', 'exclusiveMaximum sent as maximum');
  }
  for (const key of Object.keys(node)) {
    if (!GEMINI_ALLOWED.has(key)) {
      report(
        joinPointer(pointer, key),
        'removed',
        `removed ${key} (not in Gemini's schema subset)`,
      );
      delete node[key];
    }
  }
  if (Array.isArray(node.items)) {
    report(joinPointer(pointer, 'items'), 'changed', 'tuple items sent as the first item schema');
    node.items = (node.items[0] as JsonSchema | undefined) ?? {};
  }
  if (Array.isArray(node.required) && isPlainObject(node.properties)) {
    const names = Object.keys(node.properties);
    node.required = node.required.filter((name) => names.includes(name));
  }
  return mapSubschemas(node, pointer, (child, p) => toGemini(child, p, report));
}
