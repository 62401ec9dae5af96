import type { ToolSpec } from './define-tool.js';
import { isPlainObject, joinPointer, schemaAcceptsNull, type JsonSchema } from './json-schema.js';

/**
 * The schema forms providers accept, from one canonical JSON Schema:
 * - `openai`: plain JSON Schema, root made an object schema (non-strict function calling);
 * - `openai-strict`: OpenAI strict mode (every object closed, every property required, optionals
 *   made nullable; `parseToolArguments({ nullMeansAbsent: true })` maps null back to absent);
 *   falls back to `openai` with `strict: false` when the schema cannot be made strict;
 * - `xai`: OpenAI form without the keywords xAI rejects;
 * - `anthropic`: JSON Schema with an object root and no root-level combinators;
 * - `gemini`: the OpenAPI subset Gemini accepts, with `$ref`s inlined.
 */
export type SchemaDialect = 'openai' | 'openai-strict' | 'xai' | 'anthropic' | 'gemini';

export interface SchemaChange {
  toolName: string;
  /** JSON pointer into the original schema. */
  pointer: string;
  action: 'removed' | 'added' | 'changed' | 'inlined' | 'fallback';
  message: string;
}

export interface DialectResult {
  schema: JsonSchema;
  changes: SchemaChange[];
  /** For `openai-strict`: whether the result is strict-mode eligible (false means it fell back). */
  strict: boolean;
}

export interface ConvertSchemaOptions {
  toolName?: string;
}

const ANNOTATION_ONLY = new Set(['$schema', '$id', '$comment']);

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

/** Converts one schema to a provider dialect, reporting every change. The input is not modified. */
export function convertSchema(
  schema: JsonSchema,
  dialect: SchemaDialect,
  options: ConvertSchemaOptions = {},
): DialectResult {
  const toolName = options.toolName ?? '';
  const changes: SchemaChange[] = [];
  const report = (pointer: string, action: SchemaChange['action'], message: string) =>
    changes.push({ toolName, pointer, action, message });
  const base = objectRoot(plainClone(schema) as JsonSchema, report);

  switch (dialect) {
    case 'openai':
      return { schema: stripAnnotations(base, report), changes, strict: false };
    case 'anthropic':
      return { schema: stripAnnotations(base, report), changes, strict: false };
    case 'xai':
      return {
        schema: removeKeywords(
          stripAnnotations(base, report),
          '',
          XAI_UNSUPPORTED,
          'xAI rejects it',
          report,
        ),
        changes,
        strict: false,
      };
    case 'gemini':
      return { schema: toGemini(inlineRefs(base, report), '', report), changes, strict: false };
    case 'openai-strict': {
      const problems: string[] = [];
      const strictChanges: SchemaChange[] = [];
      const strictReport = (pointer: string, action: SchemaChange['action'], message: string) =>
        strictChanges.push({ toolName, pointer, action, message });
      const converted = toOpenAIStrict(
        stripAnnotations(base, strictReport),
        '',
        0,
        strictReport,
        problems,
      );
      if (problems.length === 0) {
        changes.push(...strictChanges);
        return { schema: converted, changes, strict: true };
      }
      const fallback = stripAnnotations(base, report);
      report(
        '',
        'fallback',
        `not strict-mode eligible (${problems.join('; ')}); sent without strict`,
      );
      return { schema: fallback, changes, strict: false };
    }
  }
}

/** Converts the schemas of several tools; tool names are attached to every change. */
export function convertToolSchemas(
  tools: readonly ToolSpec[],
  dialect: SchemaDialect,
): { tools: Array<ToolSpec & { strict: boolean }>; changes: SchemaChange[] } {
  const changes: SchemaChange[] = [];
  const out = tools.map((tool) => {
    const result = convertSchema(tool.inputSchema, dialect, { toolName: tool.name });
    changes.push(...result.changes);
    return { ...tool, inputSchema: result.schema, strict: result.strict };
  });
  return { tools: out, changes };
}

/** Deep copy of JSON data: symbol keys (TypeBox metadata) and undefined values dropped. */
function plainClone(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainClone);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const child = value[key];
      if (child !== undefined) out[key] = plainClone(child);
    }
    return out;
  }
  return value;
}

type Report = (pointer: string, action: SchemaChange['action'], message: string) => void;

function objectRoot(schema: JsonSchema, report: Report): JsonSchema {
  let root = schema;
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = root[keyword];
    if (
      Array.isArray(branches) &&
      branches.every(
        (b) => isPlainObject(b) && (b.type === 'object' || isPlainObject(b.properties)),
      )
    ) {
      root = mergeObjectBranches(root, keyword, report);
    }
  }
  if (root.type === undefined && !root.anyOf && !root.oneOf && !root.allOf) {
    report('/type', 'added', 'added type "object" at the root');
    root = { type: 'object', ...root };
  }
  if (root.type === 'object' && root.properties === undefined) {
    report('/properties', 'added', 'added empty properties to the root object');
    root = { ...root, properties: {} };
  }
  return root;
}

// Providers want an object at the root; a union of object shapes becomes one object whose
// required set is what every branch requires (what the model must always send).
function mergeObjectBranches(
  schema: JsonSchema,
  keyword: 'anyOf' | 'oneOf' | 'allOf',
  report: Report,
): JsonSchema {
  const branches = schema[keyword] as JsonSchema[];
  const properties: Record<string, JsonSchema> = { ...(schema.properties ?? {}) };
  let required: string[] | undefined =
    keyword === 'allOf' ? [...(schema.required ?? [])] : undefined;
  for (const branch of branches) {
    Object.assign(properties, branch.properties ?? {});
    const branchRequired = branch.required ?? [];
    if (keyword === 'allOf') required = [...new Set([...(required ?? []), ...branchRequired])];
    else
      required =
        required === undefined
          ? [...branchRequired]
          : required.filter((r) => branchRequired.includes(r));
  }
  const { [keyword]: _dropped, ...rest } = schema;
  report(
    `/${keyword}`,
    'changed',
    `merged root ${keyword} of ${branches.length} object schemas into one object`,
  );
  const merged: JsonSchema = { ...rest, type: 'object', properties };
  const finalRequired = [...new Set([...(schema.required ?? []), ...(required ?? [])])];
  if (finalRequired.length > 0) merged.required = finalRequired;
  return merged;
}

function stripAnnotations(schema: JsonSchema, report: Report): JsonSchema {
  const out: JsonSchema = { ...schema };
  for (const key of ANNOTATION_ONLY) {
    if (key in out) {
      delete out[key];
      report(`/${key}`, 'removed', `removed ${key}`);
    }
  }
  return out;
}

/** Calls `fn` on every direct subschema, returning a copy with the results. */
function mapSubschemas(
  schema: JsonSchema,
  pointer: string,
  fn: (child: JsonSchema, pointer: string) => JsonSchema,
): JsonSchema {
  const out: JsonSchema = { ...schema };
  for (const key of ['properties', '$defs', 'definitions', 'patternProperties'] as const) {
    const map = schema[key];
    if (isPlainObject(map)) {
      const next: Record<string, JsonSchema> = {};
      for (const [name, child] of Object.entries(map)) {
        next[name] = isPlainObject(child)
          ? fn(child as JsonSchema, joinPointer(pointer, key, name))
          : (child as JsonSchema);
      }
      out[key] = next;
    }
  }
  for (const key of [
    'items',
    'additionalProperties',
    'not',
    'if',
    'then',
    'else',
    'contains',
    'propertyNames',
  ] as const) {
    const child = schema[key];
    if (isPlainObject(child)) out[key] = fn(child as JsonSchema, joinPointer(pointer, key));
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) {
      out[key] = list.map((child, i) =>
        isPlainObject(child) ? fn(child as JsonSchema, joinPointer(pointer, key, i)) : child,
      );
    }
  }
  return out;
}

function removeKeywords(
  schema: JsonSchema,
  pointer: string,
  keywords: ReadonlySet<string>,
  why: string,
  report: Report,
): JsonSchema {
  const out = mapSubschemas(schema, pointer, (child, p) =>
    removeKeywords(child, p, keywords, why, report),
  );
  for (const key of Object.keys(out)) {
    if (keywords.has(key)) {
      // `properties`/`items` named like a keyword are property names, not keywords; mapSubschemas
      // keeps those inside `properties`, and only this level's own keys are checked here.
      delete out[key];
      report(joinPointer(pointer, key), 'removed', `removed ${key} (${why})`);
    }
  }
  return out;
}

function isObjectSchema(schema: JsonSchema): boolean {
  const type = schema.type;
  return (
    type === 'object' ||
    (Array.isArray(type) && type.includes('object')) ||
    (type === undefined && isPlainObject(schema.properties))
  );
}

function toOpenAIStrict(
  schema: JsonSchema,
  pointer: string,
  depth: number,
  report: Report,
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

/** Replaces `$ref`s to local `$defs`/`definitions` with their targets; cycles are cut and reported. */
export function inlineRefs(schema: JsonSchema, report: Report = () => undefined): JsonSchema {
  const root = schema;
  const resolve = (ref: string): JsonSchema | undefined => {
    if (!ref.startsWith('#')) return undefined;
    const segments = ref
      .slice(1)
      .split('/')
      .filter(Boolean)
      .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
    let node: unknown = root;
    for (const segment of segments) node = isPlainObject(node) ? node[segment] : undefined;
    return isPlainObject(node) ? (node as JsonSchema) : undefined;
  };
  const walk = (node: JsonSchema, pointer: string, trail: readonly string[]): JsonSchema => {
    if (typeof node.$ref === 'string') {
      const ref = node.$ref;
      const { $ref: _ref, ...siblings } = node;
      if (trail.includes(ref)) {
        report(
          joinPointer(pointer, '$ref'),
          'changed',
          `cut recursive reference ${ref} (replaced by an unconstrained object)`,
        );
        return {
          type: 'object',
          description:
            `${siblings.description ?? ''}${siblings.description ? ' ' : ''}(recursive structure of ${ref})`.trim(),
        };
      }
      const target = resolve(ref);
      if (!target) {
        report(joinPointer(pointer, '$ref'), 'removed', `removed unresolvable reference ${ref}`);
        return siblings;
      }
      report(joinPointer(pointer, '$ref'), 'inlined', `inlined ${ref}`);
      return walk({ ...target, ...siblings }, pointer, [...trail, ref]);
    }
    const out = mapSubschemas(node, pointer, (child, p) => walk(child, p, trail));
    return out;
  };
  const result = walk(schema, '', []);
  for (const key of ['$defs', 'definitions'] as const) {
    if (key in result) {
      delete result[key];
      report(`/${key}`, 'removed', `removed ${key} after inlining`);
    }
  }
  return result;
}

function toGemini(schema: JsonSchema, pointer: string, report: Report): JsonSchema {
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
