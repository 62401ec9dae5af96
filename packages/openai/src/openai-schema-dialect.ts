import {
  isObjectSchema,
  isPlainObject,
  joinPointer,
  mapSubschemas,
  mergeObjectBranches,
  normalizeToolSchema,
  objectRootSchema,
  removeKeywords,
  schemaAcceptsNull,
  schemaChangeLog,
  stripAnnotations,
  type ConvertedSchema,
  type JsonSchema,
  type SchemaChangeReporter,
} from '@toolwire/schema';

/**
 * The schema forms OpenAI-compatible APIs accept, from one canonical JSON Schema:
 * - `openai`: plain JSON Schema, root made an object schema (non-strict function calling);
 * - `openai-strict`: OpenAI strict mode (every object closed, every property required, optionals
 *   made nullable; `parseToolArguments({ nullMeansAbsent: true })` maps null back to absent);
 *   falls back to `openai` with `strict: false` when the schema cannot be made strict;
 * - `xai`: the `openai` form without the keywords xAI rejects.
 */
export type OpenAISchemaDialect = 'openai' | 'openai-strict' | 'xai';

export interface OpenAIConvertedSchema extends ConvertedSchema {
  /** For `openai-strict`: whether the result is strict-mode eligible (false means it fell back). */
  strict: boolean;
}

// Keywords OpenAI strict mode does not accept (its documented subset), removed with a report.
const OPENAI_STRICT_UNSUPPORTED = new Set([
  'minProperties',
  'maxProperties',
  'patternProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'if',
  'then',
  'else',
  'not',
  'contains',
  'minContains',
  'maxContains',
  'uniqueItems',
  'default',
  'examples',
  'contentEncoding',
  'contentMediaType',
  'readOnly',
  'writeOnly',
  'deprecated',
]);
const OPENAI_STRICT_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);

// Keywords xAI's validator rejects (length/size constraints and closed objects).
const XAI_UNSUPPORTED = new Set([
  'additionalProperties',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'uniqueItems',
  'pattern',
  'patternProperties',
  'propertyNames',
  'unevaluatedProperties',
  'minContains',
  'maxContains',
]);

/** Converts one schema to an OpenAI dialect, reporting every change. The input is not modified. */
export function convertToOpenAISchema(
  schema: JsonSchema,
  dialect: OpenAISchemaDialect,
  options: { toolName?: string } = {},
): OpenAIConvertedSchema {
  if (dialect === 'openai') return { ...normalizeToolSchema(schema, options), strict: false };
  if (dialect === 'xai') {
    const { schema: base, changes } = normalizeToolSchema(schema, options);
    const log = schemaChangeLog(options.toolName);
    const converted = removeKeywords(base, '', XAI_UNSUPPORTED, 'xAI rejects it', log.report);
    return { schema: converted, changes: [...changes, ...log.changes], strict: false };
  }
  const strict = schemaChangeLog(options.toolName);
  const problems: string[] = [];
  const converted = toOpenAIStrict(
    stripAnnotations(objectRootSchema(schema, strict.report), strict.report),
    '',
    0,
    strict.report,
    problems,
  );
  if (problems.length === 0) return { schema: converted, changes: strict.changes, strict: true };
  const fallback = normalizeToolSchema(schema, options);
  fallback.changes.push({
    toolName: options.toolName ?? '',
    pointer: '',
    action: 'fallback',
    message: `not strict-mode eligible (${problems.join('; ')}); sent without strict`,
  });
  return { ...fallback, strict: false };
}

function toOpenAIStrict(
  schema: JsonSchema,
  pointer: string,
  depth: number,
  report: SchemaChangeReporter,
  problems: string[],
): JsonSchema {
  if (depth > 10) {
    problems.push(`nesting deeper than 10 levels at ${pointer || '/'}`);
    return schema;
  }
  let node: JsonSchema = { ...schema };
  if (Array.isArray(node.oneOf)) {
    node.anyOf = [...(node.anyOf ?? []), ...node.oneOf];
    delete node.oneOf;
    report(
      joinPointer(pointer, 'oneOf'),
      'changed',
      'oneOf sent as anyOf (strict mode has no oneOf)',
    );
  }
  if (Array.isArray(node.allOf)) {
    if (node.allOf.every((b) => isPlainObject(b) && isObjectSchema(b as JsonSchema))) {
      node = mergeObjectBranches(node, 'allOf', (p, a, m) => report(pointer + p, a, m));
    } else {
      problems.push(`allOf at ${pointer || '/'} cannot be expressed in strict mode`);
    }
  }
  for (const key of Object.keys(node)) {
    if (OPENAI_STRICT_UNSUPPORTED.has(key)) {
      delete node[key];
      report(
        joinPointer(pointer, key),
        'removed',
        `removed ${key} (not supported in OpenAI strict mode)`,
      );
    }
  }
  if (typeof node.format === 'string' && !OPENAI_STRICT_FORMATS.has(node.format)) {
    report(
      joinPointer(pointer, 'format'),
      'removed',
      `removed format "${node.format}" (not supported in OpenAI strict mode)`,
    );
    delete node.format;
  }
  if (isObjectSchema(node)) {
    const properties = isPlainObject(node.properties)
      ? (node.properties as Record<string, JsonSchema>)
      : undefined;
    if (!properties || Object.keys(properties).length === 0) {
      if (node.additionalProperties !== undefined && node.additionalProperties !== false) {
        problems.push(`free-form object (additionalProperties) at ${pointer || '/'}`);
      } else if (pointer !== '' && !properties) {
        problems.push(`object without properties at ${pointer}`);
      }
    } else if (isPlainObject(node.additionalProperties)) {
      problems.push(`object with additionalProperties schema at ${pointer || '/'}`);
    }
    if (node.additionalProperties !== false) {
      report(
        joinPointer(pointer, 'additionalProperties'),
        node.additionalProperties === undefined ? 'added' : 'changed',
        'set additionalProperties to false',
      );
      node.additionalProperties = false;
    }
    const required = new Set(node.required ?? []);
    const nextProperties: Record<string, JsonSchema> = {};
    for (const [name, child] of Object.entries(properties ?? {})) {
      const childPointer = joinPointer(pointer, 'properties', name);
      let converted = isPlainObject(child)
        ? toOpenAIStrict(child, childPointer, depth + 1, report, problems)
        : child;
      if (!required.has(name)) {
        if (!schemaAcceptsNull(converted)) converted = makeNullable(converted);
        report(
          childPointer,
          'changed',
          'optional property made required and nullable (null is read back as absent)',
        );
      }
      nextProperties[name] = converted;
    }
    if (properties) {
      node.properties = nextProperties;
      node.required = Object.keys(nextProperties);
    }
  }
  return mapSubschemas(node, pointer, (child, p) => {
    // Object properties were converted above with their required/nullable handling.
    if (/\/properties\/[^/]+$/.test(p) && p.startsWith(joinPointer(pointer, 'properties')))
      return child;
    return toOpenAIStrict(child, p, depth + 1, report, problems);
  });
}

function makeNullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string' && !schema.anyOf && !schema.$ref) {
    const out: JsonSchema = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
    return out;
  }
  if (Array.isArray(schema.type)) return { ...schema, type: [...schema.type, 'null'] };
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  const { description, ...rest } = schema;
  return { ...(description !== undefined ? { description } : {}), anyOf: [rest, { type: 'null' }] };
}
