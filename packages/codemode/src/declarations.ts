import { CodeModeCallError, InvalidCodeModeOptionsError } from './errors.js';
import { estimateTokens, isPlainObject } from '@toolwire/schema';
import { createIdentifierMap, toTypeName } from './identifiers.js';
import {
  formatDocComment,
  SchemaToTypeScript,
  shortenText,
  splitLines,
  type SchemaToTypeScriptOptions,
} from './schema-to-typescript.js';

/** What code mode needs to know about a tool: a registry tool, an MCP tool or a schema `AnyTool`. */
export interface CodeModeToolInfo {
  name: string;
  description?: string | undefined;
  inputSchema?: unknown;
  outputSchema?: unknown;
}

export type DeclarationDetail = 'auto' | 'full' | 'compact' | 'signatures';

export interface GenerateDeclarationsOptions extends SchemaToTypeScriptOptions {
  /**
   * How much documentation to write, before the finer options below:
   * - `auto` (default): `compact` when those declarations fit in `budgetTokens`, else `signatures`;
   * - `full`: every description whole;
   * - `compact`: tool descriptions cut to about 200 characters, property descriptions to their
   *   first sentence (at most 80 characters), as end-of-line comments;
   * - `signatures`: types only, no descriptions (the fewest tokens).
   */
  detail?: DeclarationDetail;
  /**
   * With `detail: 'auto'`: the most the `compact` declarations may cost (estimated tokens) before
   * `signatures` is used instead (default 1500, about a dozen documented tools).
   */
  budgetTokens?: number;
  /**
   * Tool descriptions longer than this are cut at a sentence (or word) boundary; `Infinity` keeps
   * them whole (default 600 characters).
   */
  maxDescriptionLength?: number;
}

/** Default of `budgetTokens`. */
export const DEFAULT_DECLARATION_BUDGET_TOKENS = 1500;

/** One tool as the script sees it: the identifier it calls and the tool it reaches. */
export interface ToolBinding {
  identifier: string;
  toolName: string;
}

export interface Declarations {
  /** The declarations the model reads (in the `execute_code` description, or `toolwire code types`). */
  text: string;
  /**
   * The declarations of some of the tools, cut from `text`: the same type names, plus the shared
   * types and `typeof` targets they use (what the `execute_code` description lists).
   */
  subset(names: readonly string[]): string;
  /** Extra ambient declarations used only when type-checking (`console`, the `tools` object). */
  checkPrelude: string;
  bindings: ToolBinding[];
  /** The detail level used (what `auto` resolved to). */
  detail: Exclude<DeclarationDetail, 'auto'>;
}

/**
 * TypeScript declarations for a list of tools: one `declare function <identifier>(input): Promise<Output>`
 * per tool, with its description as a doc comment, named types for `$ref` targets, and
 * `Promise<unknown>` when the tool has no output schema. Identifiers are valid and unique for any
 * tool name (`get-weather` → `get_weather`, `a.b/c` → `a_b_c`).
 */
export function generateDeclarations(
  tools: readonly CodeModeToolInfo[],
  options: GenerateDeclarationsOptions = {},
): Declarations {
  const detail = options.detail ?? 'auto';
  if (detail !== 'auto') {
    if (!Object.prototype.hasOwnProperty.call(detailPresets, detail)) {
      throw new InvalidCodeModeOptionsError({
        path: 'declarations.detail',
        message: `expected "auto", "full", "compact" or "signatures", got ${JSON.stringify(detail)}`,
      });
    }
    return declarationsAt(tools, detail, options);
  }
  const budget = options.budgetTokens ?? DEFAULT_DECLARATION_BUDGET_TOKENS;
  if (typeof budget !== 'number' || Number.isNaN(budget)) {
    throw new InvalidCodeModeOptionsError({
      path: 'declarations.budgetTokens',
      message: `expected a number, got ${JSON.stringify(budget)}`,
    });
  }
  const compact = declarationsAt(tools, 'compact', options);
  if (estimateTokens(compact.text) <= budget) return compact;
  return declarationsAt(tools, 'signatures', options);
}

/**
 * The full, documented declarations of some of the tools (what `describe()` returns in code mode),
 * with the identifiers they have among `allTools`. `names` are tool names or identifiers; an
 * unknown one throws a `CodeModeCallError` naming it.
 */
export function describeTools(
  allTools: readonly CodeModeToolInfo[],
  names: readonly string[],
  options: GenerateDeclarationsOptions = {},
): string {
  return declareSome(allTools, names, 'full', {
    ...options,
    docComments: true,
    maxDescriptionLength: Infinity,
    maxPropertyDescriptionLength: Infinity,
  }).text;
}

/**
 * Declarations of some of the tools at one detail level, with the identifiers they have among
 * `allTools` (so a listed subset calls each tool by the same name as the whole set). `names` are
 * tool names or identifiers; an unknown one throws a `CodeModeCallError` naming it.
 */
export function declareSome(
  allTools: readonly CodeModeToolInfo[],
  names: readonly string[],
  detail: Exclude<DeclarationDetail, 'auto'>,
  options: GenerateDeclarationsOptions = {},
  identifiers: ReadonlyMap<string, string> = createIdentifierMap(allTools.map((tool) => tool.name)),
): Declarations {
  const byKey = new Map<string, CodeModeToolInfo>();
  for (const tool of allTools) {
    byKey.set(tool.name, tool);
    byKey.set(identifiers.get(tool.name)!, tool);
  }
  const chosen = names.map((name) => {
    const tool = byKey.get(name);
    if (tool === undefined)
      throw new CodeModeCallError({
        category: 'resourceNotFound',
        message: `describe: no tool named ${JSON.stringify(name)}; use the function names declared in the tool description or found by search()`,
      });
    return tool;
  });
  return declarationsAt([...new Set(chosen)], detail, options, identifiers);
}

function declarationsAt(
  tools: readonly CodeModeToolInfo[],
  detail: Exclude<DeclarationDetail, 'auto'>,
  options: GenerateDeclarationsOptions,
  identifierMap?: ReadonlyMap<string, string>,
): Declarations {
  const identifiers = identifierMap ?? createIdentifierMap(tools.map((tool) => tool.name));
  options = { ...detailPresets[detail], ...withoutUndefined(options) };
  const converter = new SchemaToTypeScript(options);
  for (const identifier of identifiers.values()) converter.reserveName(identifier);
  converter.findRepeatedTypes(
    tools.flatMap((tool) => [
      [tool.inputSchema, tool.inputSchema] as const,
      [tool.outputSchema, tool.outputSchema] as const,
    ]),
  );
  const maxDescription = options.maxDescriptionLength ?? Infinity;
  const seen = new Set<string>();
  const bindings: ToolBinding[] = [];
  const converted: Array<{
    aliases: string[];
    doc: string;
    description: string;
    identifier: string;
    optional: boolean;
    input: Shape;
    output: Shape;
  }> = [];
  for (const tool of tools) {
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    const identifier = identifiers.get(tool.name)!;
    bindings.push({ identifier, toolName: tool.name });
    const prefix = toTypeName(identifier);
    const before = converter.aliases.length;
    const input = inputParameter(converter, tool.inputSchema, prefix);
    const output: Shape = {
      type:
        tool.outputSchema === undefined || tool.outputSchema === null
          ? 'unknown'
          : converter.convert(tool.outputSchema, tool.outputSchema, `${prefix}Output`),
      schema: tool.outputSchema,
      name: `${prefix}Output`,
    };
    const docLines = splitLines(shortenText(tool.description ?? '', maxDescription));
    converted.push({
      aliases: converter.aliases.slice(before),
      doc: options.docComments === false ? '' : formatDocComment(docLines, ''),
      description: tool.description ?? '',
      identifier,
      optional: input.optional,
      input,
      output,
    });
  }
  // A tool with the same description and types as an earlier one (the same server at a second
  // root) is declared as `typeof` that one.
  const twinOf = new Map<string, string>();
  const firstWith = new Map<string, string>();
  for (const tool of converted) {
    const key = JSON.stringify([
      tool.description,
      tool.optional,
      tool.input.type,
      tool.output.type,
    ]);
    const first = firstWith.get(key);
    if (first !== undefined && tool.aliases.length === 0) twinOf.set(tool.identifier, first);
    else if (first === undefined) firstWith.set(key, tool.identifier);
  }
  // Tools with the same input or output type (the many tools answering `{ content: string }`)
  // share one named type instead of repeating it.
  const uses = new Map<string, number>();
  for (const { identifier, input, output } of converted) {
    if (twinOf.has(identifier)) continue;
    for (const shape of [input, output]) uses.set(shape.type, (uses.get(shape.type) ?? 0) + 1);
  }
  const sharedNames = new Map<string, string>();
  const blocks: Array<{
    identifier: string;
    aliases: string[];
    declaration: string;
    twin?: string;
  }> = [];
  for (const tool of converted) {
    const twin = twinOf.get(tool.identifier);
    if (twin !== undefined) {
      blocks.push({
        identifier: tool.identifier,
        aliases: [],
        declaration: `declare const ${tool.identifier}: typeof ${twin};`,
        twin,
      });
      continue;
    }
    const aliases = [...tool.aliases];
    const [input, output] = [tool.input, tool.output].map((shape, index) => {
      const count = uses.get(shape.type)!;
      const known = sharedNames.get(shape.type);
      if (known !== undefined) return known;
      if (count < 2 || !shape.type.startsWith('{') || shape.type === '{}') return shape.type;
      const name = converter.nameType(sharedShapeName(shape, index === 0 ? 'Input' : 'Output'));
      // Sharing pays when the name is much shorter than the type it stands for.
      if ((count - 1) * shape.type.length <= count * name.length + 12) {
        converter.releaseName(name);
        return shape.type;
      }
      sharedNames.set(shape.type, name);
      aliases.push(`type ${name} = ${shape.type};`);
      return name;
    }) as [string, string];
    blocks.push({
      identifier: tool.identifier,
      aliases,
      declaration: `${tool.doc}declare function ${tool.identifier}(input${tool.optional ? '?' : ''}: ${input}): Promise<${output}>;`,
    });
  }
  const toolsMembers = bindings
    .map((b) => `  readonly ${b.identifier}: typeof ${b.identifier};`)
    .join('\n');
  const checkPrelude = [
    'declare const console: {',
    '  log(...data: unknown[]): void;',
    '  info(...data: unknown[]): void;',
    '  warn(...data: unknown[]): void;',
    '  error(...data: unknown[]): void;',
    '  debug(...data: unknown[]): void;',
    '};',
    '/** The full, documented declarations of the named tools. */',
    'declare function describe(tools: string | string[]): Promise<string>;',
    '/** Tools whose name, description or parameters match the words of the query, best first. */',
    'declare function search(query: string, options?: { limit?: number }): Promise<Array<{ name: string; identifier: string; description: string; signature: string }>>;',
    `declare const tools: {\n${toolsMembers}\n};`,
  ].join('\n');
  // Without doc comments a blank line between tools only costs tokens.
  const separator = options.docComments === false ? '\n' : '\n\n';
  const write = (chosen: typeof blocks, extra: string[] = []) =>
    [
      ...(extra.length > 0 ? [extra.join('\n')] : []),
      ...chosen.map((block) => [...block.aliases, block.declaration].join('\n')),
    ].join(separator) + (chosen.length > 0 ? '\n' : '');
  const byKey = new Map<string, (typeof blocks)[number]>();
  for (const [index, binding] of bindings.entries()) {
    byKey.set(binding.toolName, blocks[index]!);
    byKey.set(binding.identifier, blocks[index]!);
  }
  const aliasLine = new Map<string, string>();
  for (const block of blocks)
    for (const line of block.aliases) {
      const name = /(?:^|\n)type (\w+)/.exec(line)?.[1];
      if (name !== undefined) aliasLine.set(name, line);
    }
  const subset = (names: readonly string[]): string => {
    const chosen = new Set<(typeof blocks)[number]>();
    for (const name of names) {
      const block = byKey.get(name);
      if (block === undefined)
        throw new CodeModeCallError({
          category: 'resourceNotFound',
          message: `no tool named ${JSON.stringify(name)}`,
        });
      chosen.add(block);
      // A `typeof` twin needs the tool it copies (twins always point at a declared function).
      if (block.twin !== undefined) chosen.add(byKey.get(block.twin)!);
    }
    const ordered = blocks.filter((block) => chosen.has(block));
    // Named types the chosen declarations use but another tool's block defines.
    const written = new Set(ordered.flatMap((block) => block.aliases));
    const extra: string[] = [];
    let pending = ordered.map((block) => [...block.aliases, block.declaration].join('\n'));
    while (pending.length > 0) {
      const next: string[] = [];
      for (const text of pending)
        for (const [word] of text.matchAll(/\b[A-Z]\w*\b/g)) {
          const line = aliasLine.get(word);
          if (line === undefined || written.has(line)) continue;
          written.add(line);
          extra.push(line);
          next.push(line);
        }
      pending = next;
    }
    return write(ordered, extra);
  };
  return {
    text: write(blocks),
    subset,
    checkPrelude,
    bindings,
    detail,
  };
}

/** A tool's input or output type, and what to call it if several tools share it. */
interface Shape {
  type: string;
  schema: unknown;
  /** The tool's own name for it (`FsReadFileInput`). */
  name: string;
}

function inputParameter(
  converter: SchemaToTypeScript,
  schema: unknown,
  prefix: string,
): Shape & { optional: boolean } {
  const name = `${prefix}Input`;
  if (schema === undefined || schema === null) return { type: '{}', schema, name, optional: true };
  const converted = converter.convert(schema, schema, name);
  // An empty input schema (`{}`, as some servers send for "no arguments") still takes an object.
  const type =
    converted === 'unknown' || converted === 'Record<string, unknown>' ? '{}' : converted;
  const hasRequired =
    isPlainObject(schema) && Array.isArray(schema.required) && schema.required.length > 0;
  return { type, schema, name, optional: !hasRequired };
}

/** `{ path: string }` → `PathInput`; larger shapes take the first tool's name (`FsReadFileInput`). */
function sharedShapeName(shape: Shape, kind: 'Input' | 'Output'): string {
  const keys =
    isPlainObject(shape.schema) && isPlainObject(shape.schema.properties)
      ? Object.keys(shape.schema.properties)
      : [];
  if (keys.length >= 1 && keys.length <= 2) return `${toTypeName(keys.join('_'))}${kind}`;
  return shape.name;
}

const detailPresets: Record<Exclude<DeclarationDetail, 'auto'>, GenerateDeclarationsOptions> = {
  full: {},
  compact: { maxDescriptionLength: 200, maxPropertyDescriptionLength: 80 },
  signatures: { docComments: false },
};

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
