/**
 * A JSON Schema document (draft 2020-12 or draft-07, as MCP servers send them). Deliberately
 * loose: foreign schemas carry keywords we do not know, and they must survive a round trip.
 */
export interface JsonSchema {
  $schema?: string;
  $id?: string;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  definitions?: Record<string, JsonSchema>;
  type?: JsonSchemaType | JsonSchemaType[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema | JsonSchema[];
  prefixItems?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  not?: JsonSchema;
  nullable?: boolean;
  format?: string;
  default?: unknown;
  [keyword: string]: unknown;
}

export type JsonSchemaType =
  'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Escapes one JSON pointer segment (RFC 6901). */
export function escapePointerSegment(segment: string | number): string {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function joinPointer(base: string, ...segments: Array<string | number>): string {
  return segments.reduce<string>(
    (pointer, segment) => `${pointer}/${escapePointerSegment(segment)}`,
    base,
  );
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The types a schema admits at its top level, or undefined when it does not say. */
export function schemaTypes(schema: JsonSchema): JsonSchemaType[] | undefined {
  if (schema.type === undefined) return undefined;
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

/** Whether `null` is an acceptable value for this schema, looking through anyOf/oneOf. */
export function schemaAcceptsNull(schema: JsonSchema | boolean | undefined): boolean {
  if (schema === undefined || schema === true) return true;
  if (schema === false) return false;
  if (schema.nullable === true) return true;
  const types = schemaTypes(schema);
  if (types?.includes('null')) return true;
  if (schema.const === null) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    if (schemaAcceptsNull(branch)) return true;
  }
  if (
    types === undefined &&
    schema.enum === undefined &&
    schema.const === undefined &&
    !schema.anyOf &&
    !schema.oneOf &&
    !schema.$ref
  ) {
    // An unconstrained schema ({} or only annotations) accepts anything, null included.
    return schema.properties === undefined && schema.items === undefined;
  }
  return false;
}
