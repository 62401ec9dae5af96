import { isPlainObject } from '@toolwire/schema';
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

export interface GenerateDeclarationsOptions extends SchemaToTypeScriptOptions {
  /**
   * How much documentation to write, before the finer options below:
   * - `full`: every description whole;
   * - `compact` (default): tool descriptions cut to about 200 characters, property descriptions to
   *   their first sentence (at most 80 characters), as end-of-line comments;
   * - `signatures`: types only, no descriptions (the fewest tokens).
   */
  detail?: 'full' | 'compact' | 'signatures';
  /**
   * Tool descriptions longer than this are cut at a sentence (or word) boundary; `Infinity` keeps
   * them whole (default 600 characters).
   */
  maxDescriptionLength?: number;
}

/** One tool as the script sees it: the identifier it calls and the tool it reaches. */
export interface ToolBinding {
  identifier: string;
  toolName: string;
}

export interface Declarations {
  /** The declarations the model reads (in the `execute_code` description, or `toolwire code types`). */
  text: string;
  /** Extra ambient declarations used only when type-checking (`console`, the `tools` object). */
  checkPrelude: string;
  bindings: ToolBinding[];
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
  const identifiers = createIdentifierMap(tools.map((tool) => tool.name));
  options = { ...detailPresets[options.detail ?? 'compact'], ...withoutUndefined(options) };
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
  const blocks: string[] = [];
  const bindings: ToolBinding[] = [];
  for (const tool of tools) {
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    const identifier = identifiers.get(tool.name)!;
    bindings.push({ identifier, toolName: tool.name });
    const prefix = toTypeName(identifier);
    const before = converter.aliases.length;
    const input = inputParameter(converter, tool.inputSchema, prefix);
    const output =
      tool.outputSchema === undefined || tool.outputSchema === null
        ? 'unknown'
        : converter.convert(tool.outputSchema, tool.outputSchema, `${prefix}Output`);
    const aliases = converter.aliases.slice(before);
    const docLines = splitLines(shortenText(tool.description ?? '', maxDescription));
    const doc = options.docComments === false ? '' : formatDocComment(docLines, '');
    blocks.push(
      [...aliases, `${doc}declare function ${identifier}(${input}): Promise<${output}>;`].join(
        '\n',
      ),
    );
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
    `declare const tools: {\n${toolsMembers}\n};`,
  ].join('\n');
  // Without doc comments a blank line between tools only costs tokens.
  const separator = options.docComments === false ? '\n' : '\n\n';
  return {
    text: blocks.join(separator) + (blocks.length > 0 ? '\n' : ''),
    checkPrelude,
    bindings,
  };
}

function inputParameter(converter: SchemaToTypeScript, schema: unknown, prefix: string): string {
  if (schema === undefined || schema === null) return 'input?: {}';
  const converted = converter.convert(schema, schema, `${prefix}Input`);
  // An empty input schema (`{}`, as some servers send for "no arguments") still takes an object.
  const type =
    converted === 'unknown' || converted === 'Record<string, unknown>' ? '{}' : converted;
  const hasRequired =
    isPlainObject(schema) && Array.isArray(schema.required) && schema.required.length > 0;
  return `input${hasRequired ? '' : '?'}: ${type}`;
}

const detailPresets: Record<
  NonNullable<GenerateDeclarationsOptions['detail']>,
  GenerateDeclarationsOptions
> = {
  full: {},
  compact: { maxDescriptionLength: 200, maxPropertyDescriptionLength: 80 },
  signatures: { docComments: false },
};

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
