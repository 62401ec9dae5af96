import { isPlainObject, type JsonSchema } from '@toolwire/schema';
import { isIdentifier, reservedTypeNames, toTypeName } from './identifiers.js';

export interface SchemaToTypeScriptOptions {
  /** Nesting deeper than this becomes `unknown` (default 12). */
  maxDepth?: number;
  /** Write `description`s (and `default`, `format`, `deprecated`) as doc comments (default true). */
  docComments?: boolean;
  /** Enums with more members than this become their base type (default 64). */
  maxEnumMembers?: number;
  /**
   * Doc comments of properties are cut to their first sentence, at most this many characters
   * (default: kept whole).
   */
  maxPropertyDescriptionLength?: number;
}

/**
 * Converts the schemas of one or more tools into TypeScript type expressions. One converter is
 * shared by all the tools of a declaration file, so the names it gives to `$ref` targets are
 * unique across the whole file. Named types (for `$ref`) are collected in `aliases`.
 */
export class SchemaToTypeScript {
  /** `type X = …;` lines for every `$ref` target met so far, in the order they were named. */
  readonly aliases: string[] = [];
  private readonly usedTypeNames = new Set<string>();
  private readonly maxDepth: number;
  private readonly docComments: boolean;
  private readonly maxEnumMembers: number;
  private readonly maxPropertyDescription: number;
  /** Object schemas (by their JSON) that occur more than once: written once as a named type. */
  private repeated = new Set<string>();
  private readonly shared = new Map<string, string>();
  /** `$ref` aliases whose bodies are being converted. */
  private readonly inProgress = new Set<string>();
  /** Set while counting: how often each object type's text occurs. */
  private counts: Map<string, number> | undefined;
  private hoisting = true;

  constructor(private readonly options: SchemaToTypeScriptOptions = {}) {
    this.maxPropertyDescription = options.maxPropertyDescriptionLength ?? Infinity;
    for (const name of reservedTypeNames) this.usedTypeNames.add(name);
    this.maxDepth = options.maxDepth ?? 12;
    this.docComments = options.docComments ?? true;
    this.maxEnumMembers = options.maxEnumMembers ?? 64;
  }

  /**
   * Remembers the object types that occur more than once (the same entity in several tools'
   * inputs and outputs), so each is written once as a named type instead of in full at every use.
   * Pass the schemas in the order they will be converted, as `[schema, root]` pairs.
   */
  findRepeatedTypes(schemas: ReadonlyArray<readonly [unknown, unknown]>): void {
    const counter = new SchemaToTypeScript(this.options);
    counter.counts = new Map();
    for (const [schema, root] of schemas) counter.convert(schema, root, 'Count');
    this.repeated = new Set(
      [...counter.counts].filter(([, count]) => count > 1).map(([text]) => text),
    );
  }

  /** Reserves a name so no generated alias takes it. */
  reserveName(name: string): void {
    this.usedTypeNames.add(name);
  }

  /**
   * The TypeScript type of `schema`. `root` is the document `$ref`s resolve against (the tool's
   * input or output schema); `prefix` starts the names of the aliases made for its `$ref`s.
   */
  convert(schema: unknown, root: unknown, prefix: string, indent = ''): string {
    const scope: Scope = { root, prefix, refNames: new Map(), stack: [], hint: '', guarded: false };
    return this.type(schema, scope, 0, indent);
  }

  /** A doc comment for a schema's annotations, or '' when it has none (or comments are off). */
  docComment(schema: unknown, indent: string, extra: string[] = [], maxLength = Infinity): string {
    return formatDocComment(this.docLines(schema, extra, maxLength), indent);
  }

  private docLines(schema: unknown, extra: string[] = [], maxLength = Infinity): string[] {
    if (!this.docComments) return [];
    const lines: string[] = [];
    if (isPlainObject(schema)) {
      if (maxLength <= 0) {
        // Descriptions are left out; the tags below still say what a value must look like.
      } else if (typeof schema.description === 'string' && schema.description.trim() !== '') {
        lines.push(...splitLines(shortenText(schema.description, maxLength)));
      } else if (typeof schema.title === 'string' && schema.title.trim() !== '') {
        lines.push(shortenText(schema.title, maxLength));
      }
      if (typeof schema.format === 'string') lines.push(`@format ${schema.format}`);
      if (schema.default !== undefined) {
        const text = safeJson(schema.default);
        if (text !== undefined && text.length <= 80) lines.push(`@default ${text}`);
      }
      if (schema.deprecated === true) lines.push('@deprecated');
    }
    lines.push(...extra);
    return lines;
  }

  private type(schema: unknown, scope: Scope, depth: number, indent: string): string {
    if (schema === true || schema === undefined) return 'unknown';
    if (schema === false) return 'never';
    if (!isPlainObject(schema)) return 'unknown';
    if (depth > this.maxDepth) return 'unknown';
    // Schemas built in JavaScript can be cyclic objects; JSON ones cannot, but $refs can.
    if (scope.stack.includes(schema)) return 'unknown';
    scope.stack.push(schema);
    try {
      const s = schema as JsonSchema;
      const parts: string[] = [];
      if (typeof s.$ref === 'string') parts.push(this.ref(s.$ref, scope, depth));
      const base = this.baseType(s, scope, depth, indent);
      if (base !== undefined) parts.push(base);
      for (const keyword of ['anyOf', 'oneOf'] as const) {
        const branches = s[keyword];
        if (Array.isArray(branches) && branches.length > 0) {
          const types = unique(branches.map((b) => this.type(b, scope, depth + 1, indent)));
          parts.push(types.includes('unknown') ? 'unknown' : types.join(' | '));
        }
      }
      if (Array.isArray(s.allOf) && s.allOf.length > 0) {
        const types = unique(s.allOf.map((b) => this.type(b, scope, depth + 1, indent))).filter(
          (t) => t !== 'unknown',
        );
        if (types.length > 0) parts.push(types.map((t) => wrapIntersection(t)).join(' & '));
      }
      let result: string;
      const meaningful = parts.filter((p) => p !== 'unknown');
      if (meaningful.length === 0) result = 'unknown';
      else if (meaningful.length === 1) result = meaningful[0]!;
      else result = meaningful.map((t) => wrapIntersection(t)).join(' & ');
      if (s.nullable === true && result !== 'unknown' && !/(^|\| )null( \||$)/.test(result)) {
        result = `${result} | null`;
      }
      return result;
    } finally {
      scope.stack.pop();
    }
  }

  /** The type from `const`, `enum`, `type`, `properties` and `items`; undefined when none is given. */
  private baseType(s: JsonSchema, scope: Scope, depth: number, indent: string): string | undefined {
    if (s.const !== undefined) return literal(s.const) ?? 'unknown';
    if (Array.isArray(s.enum)) {
      const literals = s.enum.map(literal);
      if (
        s.enum.length > 0 &&
        s.enum.length <= this.maxEnumMembers &&
        literals.every((l) => l !== undefined)
      ) {
        return unique(literals as string[]).join(' | ');
      }
    }
    const declared = s.type === undefined ? undefined : Array.isArray(s.type) ? s.type : [s.type];
    const types =
      declared ??
      (s.properties !== undefined || s.additionalProperties !== undefined
        ? ['object']
        : s.items !== undefined || s.prefixItems !== undefined
          ? ['array']
          : Array.isArray(s.enum)
            ? [...new Set(s.enum.map((v) => (v === null ? 'null' : typeof v)))]
            : undefined);
    if (types === undefined) return undefined;
    const mapped = unique(
      types.map((type) => {
        switch (type) {
          case 'string':
            return 'string';
          case 'number':
          case 'integer':
          case 'bigint':
            return 'number';
          case 'boolean':
            return 'boolean';
          case 'null':
            return 'null';
          case 'array':
            return this.arrayType(s, scope, depth, indent);
          case 'object':
            return this.objectType(s, scope, depth, indent);
          default:
            return 'unknown';
        }
      }),
    );
    if (mapped.includes('unknown')) return 'unknown';
    return mapped.join(' | ');
  }

  private arrayType(s: JsonSchema, scope: Scope, depth: number, indent: string): string {
    const tuple = Array.isArray(s.prefixItems)
      ? s.prefixItems
      : Array.isArray(s.items)
        ? s.items
        : undefined;
    if (tuple) {
      return guarded(scope, () => {
        const members = tuple.map((item) => this.type(item, scope, depth + 1, indent));
        const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
        if (rest !== false && rest !== undefined)
          members.push(`...${wrapArray(this.type(rest, scope, depth + 1, indent))}[]`);
        return `[${members.join(', ')}]`;
      });
    }
    if (s.items === undefined || (s.items as unknown) === true) return 'unknown[]';
    return guarded(scope, () => `${wrapArray(this.type(s.items, scope, depth + 1, indent))}[]`);
  }

  private objectType(s: JsonSchema, scope: Scope, depth: number, indent: string): string {
    const hasProperties = isPlainObject(s.properties) && Object.keys(s.properties).length > 1;
    if (depth === 0 || !hasProperties || !this.hoisting)
      return this.objectBody(s, scope, depth, indent);
    if (this.counts) {
      // Counting pass: the output is thrown away, so the unindented text serves as both.
      const text = this.objectBody(s, scope, depth, '');
      this.counts.set(text, (this.counts.get(text) ?? 0) + 1);
      return text;
    }
    if (this.repeated.size === 0) return this.objectBody(s, scope, depth, indent);
    // The text without any sharing is the identity the counting pass saw.
    this.hoisting = false;
    const plain = this.objectBody(s, scope, depth, '');
    this.hoisting = true;
    if (!this.repeated.has(plain)) return this.objectBody(s, scope, depth, indent);
    const known = this.shared.get(plain);
    if (known !== undefined) return known;
    const name = this.uniqueName(toTypeName(singular(scope.hint) || 'Item'));
    this.shared.set(plain, name);
    const slot = this.aliases.length;
    this.aliases.push('');
    this.aliases[slot] = `type ${name} = ${this.objectBody(s, scope, depth, '')};`;
    return name;
  }

  private objectBody(s: JsonSchema, scope: Scope, depth: number, indent: string): string {
    const declared = isPlainObject(s.properties) ? s.properties : {};
    const required = new Set(
      Array.isArray(s.required) ? s.required.filter((r) => typeof r === 'string') : [],
    );
    // A required name without a schema still must be sent: declare it rather than reject it.
    const properties: Array<[string, unknown]> = [
      ...Object.entries(declared),
      ...[...required]
        .filter((name) => !Object.prototype.hasOwnProperty.call(declared, name))
        .map((name): [string, unknown] => [name, true]),
    ];
    const extra = s.additionalProperties ?? s.patternProperties;
    if (properties.length === 0) {
      if (extra === false) return 'Record<string, never>';
      if (isPlainObject(extra) && !isPlainObject(s.patternProperties)) {
        return guarded(
          scope,
          () => `{ [key: string]: ${this.type(extra, scope, depth + 1, indent)} }`,
        );
      }
      return 'Record<string, unknown>';
    }
    const inner = `${indent}  `;
    const members: Array<{ doc: string; text: string; trailing?: string }> = [];
    const outerHint = scope.hint;
    for (const [name, child] of properties) {
      const key = isIdentifier(name) ? name : quote(name);
      const optional = required.has(name) ? '' : '?';
      scope.hint = name;
      const text = `${key}${optional}: ${guarded(scope, () => this.type(child, scope, depth + 1, inner))};`;
      const doc = this.docLines(child, [], this.maxPropertyDescription);
      // One line of documentation goes after the property: cheaper than a doc-comment block.
      if (doc.length === 1) members.push({ doc: '', text, trailing: cleanDocText(doc[0]!) });
      else members.push({ doc: formatDocComment(doc, inner), text });
    }
    scope.hint = outerHint;
    // Extra keys the schema allows explicitly; their type must admit every named property's type.
    if (extra === true || isPlainObject(extra))
      members.push({ doc: '', text: '[key: string]: unknown;' });
    // Small objects without comments go on one line: fewer tokens, same meaning.
    const oneLine = `{ ${members.map((m) => m.text.slice(0, -1)).join('; ')} }`;
    if (
      members.every((m) => m.doc === '' && m.trailing === undefined && !m.text.includes('\n')) &&
      oneLine.length <= 100
    ) {
      return oneLine;
    }
    return `{\n${members
      .map((m) => `${m.doc}${inner}${m.text}${m.trailing !== undefined ? ` // ${m.trailing}` : ''}`)
      .join('\n')}\n${indent}}`;
  }

  private ref(ref: string, scope: Scope, depth: number): string {
    const known = scope.refNames.get(ref);
    if (known !== undefined) {
      // `type A = A | string` is circular; `type A = { next?: A }` and `A[]` are fine.
      return this.inProgress.has(known) && !scope.guarded ? 'unknown' : known;
    }
    const target = resolvePointer(scope.root, ref);
    if (target === undefined) return 'unknown';
    const last = ref === '#' ? 'Root' : (ref.split('/').pop() ?? 'Ref');
    const name = this.uniqueName(`${scope.prefix}${toTypeName(decodeSegment(last))}`);
    scope.refNames.set(ref, name);
    // The alias is named before its body is converted, so a self-reference inside resolves to it.
    const slot = this.aliases.length;
    this.aliases.push('');
    const inner: Scope = { ...scope, stack: [], hint: last, guarded: false };
    this.inProgress.add(name);
    const body = this.type(target, inner, depth + 1, '');
    this.inProgress.delete(name);
    const doc = this.docComment(target, '');
    this.aliases[slot] = `${doc}type ${name} = ${body};`;
    return name;
  }

  /** A type name no other type of this converter uses, based on `base` (`Base`, `Base2`, …). */
  nameType(base: string): string {
    return this.uniqueName(base);
  }

  /** Gives back a name from `nameType` that ended up unused. */
  releaseName(name: string): void {
    this.usedTypeNames.delete(name);
  }

  private uniqueName(base: string): string {
    let name = base;
    for (let n = 2; this.usedTypeNames.has(name); n++) name = `${base}${n}`;
    this.usedTypeNames.add(name);
    return name;
  }
}

interface Scope {
  root: unknown;
  prefix: string;
  refNames: Map<string, string>;
  stack: unknown[];
  /** The property being converted: names a shared type after what it holds. */
  hint: string;
  /** True inside an object property, array item or record value, where a type may refer to itself. */
  guarded: boolean;
}

/** Resolves a local `$ref` (`#`, `#/$defs/x`, any JSON pointer); undefined for anything else. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const segment = decodeSegment(raw);
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isPlainObject(node) && Object.prototype.hasOwnProperty.call(node, segment))
      node = node[segment];
    else return undefined;
  }
  return node;
}

function decodeSegment(segment: string): string {
  let text = segment;
  try {
    text = decodeURIComponent(segment);
  } catch {
    // Not percent-encoded: use it as written.
  }
  return text.replace(/~1/g, '/').replace(/~0/g, '~');
}

function literal(value: unknown): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return undefined;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function wrapIntersection(type: string): string {
  return topLevelHas(type, '|') ? `(${type})` : type;
}

function wrapArray(type: string): string {
  return topLevelHas(type, '|') || topLevelHas(type, '&') ? `(${type})` : type;
}

/** Whether `operator` occurs outside any brackets or string literal of `type`. */
function topLevelHas(type: string, operator: '|' | '&'): boolean {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < type.length; i++) {
    const c = type[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"') quote = c;
    else if (c === '{' || c === '(' || c === '[' || c === '<') depth++;
    else if (c === '}' || c === ')' || c === ']' || c === '>') depth--;
    else if (c === operator && depth === 0) return true;
  }
  return false;
}

/** A `/** … *\/` block; `*\/` inside the text is broken up so it cannot end the comment early. */
export function formatDocComment(lines: string[], indent: string): string {
  const clean = lines.flatMap(splitLines).map(cleanDocText);
  while (clean.length > 0 && clean[clean.length - 1] === '') clean.pop();
  if (clean.length === 0) return '';
  if (clean.length === 1) return `${indent}/** ${clean[0]} */\n`;
  return `${indent}/**\n${clean.map((line) => `${indent} *${line === '' ? '' : ` ${line}`}`).join('\n')}\n${indent} */\n`;
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** A single-quoted string literal: in a JSON-encoded tool description it needs no escaping. */
function quote(text: string): string {
  const json = JSON.stringify(text).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'");
  return `'${json}'`;
}

/** `entities` → `entity`, `relations` → `relation`, `address` stays. */
function singular(word: string): string {
  if (/ies$/i.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|us|is)$/i.test(word)) return word;
  if (/s$/i.test(word)) return word.slice(0, -1);
  return word;
}

/** Cuts text to its first sentence when it is longer than `max`, else at a word, adding "…". */
export function shortenText(text: string, max: number): string {
  const trimmed = text.trim();
  if (trimmed.length <= max) return trimmed;
  const head = trimmed.slice(0, max);
  const sentence = Math.max(head.lastIndexOf('. '), head.lastIndexOf('.\n'));
  if (sentence > max * 0.4) return head.slice(0, sentence + 1);
  const space = head.lastIndexOf(' ');
  return `${head.slice(0, space > max * 0.4 ? space : max).trimEnd()}…`;
}

/** Every line terminator JavaScript knows: a `//` comment ends at any of them. */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|[\r\n\u2028\u2029]/);
}

/**
 * Documentation text that cannot end its comment (`*\/`) or the markdown fence around the
 * declarations (three backticks).
 */
function cleanDocText(line: string): string {
  return line
    .replace(/\*\//g, '*\\/')
    .replace(/`{3,}/g, (ticks) => "'".repeat(ticks.length))
    .trimEnd();
}

function guarded<T>(scope: Scope, convert: () => T): T {
  const outer = scope.guarded;
  scope.guarded = true;
  try {
    return convert();
  } finally {
    scope.guarded = outer;
  }
}
