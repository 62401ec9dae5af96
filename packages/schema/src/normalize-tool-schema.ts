import type { ToolSpec } from './define-tool.js';
import { isPlainObject, joinPointer, type JsonSchema } from './json-schema.js';

/**
 * What every provider wants of a tool's input schema, and the pieces each adapter builds its own
 * dialect from (OpenAI strict mode and xAI in `@toolwire/openai`, Gemini's OpenAPI subset in
 * `@toolwire/google`). Every change to a schema is reported, so a model's odd arguments can be
 * traced to what it was actually shown.
 */

export interface SchemaChange {
  toolName: string;
  /** JSON pointer into the original schema. */
  pointer: string;
  action: 'removed' | 'added' | 'changed' | 'inlined' | 'fallback';
  message: string;
}

/** Receives one change: where (a pointer into the original schema), what kind, and why. */
export type SchemaChangeReporter = (
  pointer: string,
  action: SchemaChange['action'],
  message: string,
) => void;

export interface ConvertedSchema {
  schema: JsonSchema;
  changes: SchemaChange[];
}

const ANNOTATION_ONLY = new Set(['$schema', '$id', '$comment']);

/** A list of changes and the reporter that fills it, every change tagged with the tool's name. */
export function schemaChangeLog(toolName = ''): {
  changes: SchemaChange[];
  report: SchemaChangeReporter;
} {
  const changes: SchemaChange[] = [];
  return {
    changes,
    report: (pointer, action, message) => changes.push({ toolName, pointer, action, message }),
  };
}

/**
 * The schema every provider accepts for a tool's input: an object schema at the root (a root
 * union of object schemas merged into one object, `type: "object"` and empty `properties` added
 * when missing), without the annotation-only keywords. This is the whole dialect of Anthropic,
 * Ollama and OpenAI's non-strict function calling. The input is not modified.
 */
export function normalizeToolSchema(
  schema: JsonSchema,
  options: { toolName?: string } = {},
): ConvertedSchema {
  const log = schemaChangeLog(options.toolName);
  return {
    schema: stripAnnotations(objectRootSchema(schema, log.report), log.report),
    changes: log.changes,
  };
}

/** `normalizeToolSchema` over several tools; each change names its tool. */
export function normalizeToolSchemas(tools: readonly ToolSpec[]): {
  tools: ToolSpec[];
  changes: SchemaChange[];
} {
  const changes: SchemaChange[] = [];
  const out = tools.map((tool) => {
    const result = normalizeToolSchema(tool.inputSchema, { toolName: tool.name });
    changes.push(...result.changes);
    return { ...tool, inputSchema: result.schema };
  });
  return { tools: out, changes };
}

/** A plain copy of the schema with an object root (see `normalizeToolSchema`), annotations kept. */
export function objectRootSchema(schema: JsonSchema, report: SchemaChangeReporter): JsonSchema {
  return objectRoot(plainClone(schema) as JsonSchema, report);
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

function objectRoot(schema: JsonSchema, report: SchemaChangeReporter): JsonSchema {
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
export function mergeObjectBranches(
  schema: JsonSchema,
  keyword: 'anyOf' | 'oneOf' | 'allOf',
  report: SchemaChangeReporter,
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

/** Removes `$schema`, `$id` and `$comment` at the root. */
export function stripAnnotations(schema: JsonSchema, report: SchemaChangeReporter): JsonSchema {
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
export function mapSubschemas(
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

/** Removes `keywords` wherever they stand as keywords (never property names), saying `why`. */
export function removeKeywords(
  schema: JsonSchema,
  pointer: string,
  keywords: ReadonlySet<string>,
  why: string,
  report: SchemaChangeReporter,
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

/** Whether a schema describes an object (by `type`, or by `properties` without a type). */
export function isObjectSchema(schema: JsonSchema): boolean {
  const type = schema.type;
  return (
    type === 'object' ||
    (Array.isArray(type) && type.includes('object')) ||
    (type === undefined && isPlainObject(schema.properties))
  );
}

/** Replaces `$ref`s to local `$defs`/`definitions` with their targets; cycles are cut and reported. */
export function inlineRefs(
  schema: JsonSchema,
  report: SchemaChangeReporter = () => undefined,
): JsonSchema {
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
