// Everything that follows from the source's current tool list: the declarations the code is
// checked against, the functions the sandbox gets (tools, `describe`, `search`), the
// `execute_code` tool with its description, and the tools left direct.
import {
  DEFAULT_SEARCH_LIMIT,
  ToolSearchIndex,
  parseToolArguments,
  type AnyTool,
  type ToolExecutionContext,
  type ToolSource,
} from '@toolwire/schema';
import { resolveLimits, type HostFunction } from '@toolwire/executor';
import type {
  CodeModeOptions,
  CodeRunResult,
  ToolMode,
  ToolSearchResult,
} from './code-mode-types.js';
import {
  declareSome,
  describeTools,
  generateDeclarations,
  type Declarations,
} from './declarations.js';
import { directToolsOf } from './direct-tools.js';
import { CodeModeCallError } from './errors.js';
import {
  DEFAULT_DESCRIPTION_BUDGET_TOKENS,
  executeCodeDescription,
} from './execute-code-description.js';
import { EXECUTE_CODE_TOOL_NAME, createExecuteCodeTool } from './execute-code-tool.js';
import { createIdentifierMap } from './identifiers.js';
import { shortenText } from './schema-to-typescript.js';
import type { CodeModeToolSource, SourceTool } from './tool-source.js';
import { unwrapToolResult } from './unwrap-tool-result.js';

/** Name of the sandbox function returning tools' full declarations. */
export const DESCRIBE_FUNCTION = 'describe';
/** Name of the host function behind `search(query, options)` (host functions take one argument). */
export const SEARCH_FUNCTION = '__toolwire_search';
const SEARCH_DESCRIPTION_LENGTH = 160;

export interface CodeTools {
  declarations: Declarations;
  /** The sandbox functions, with tool calls going to the code mode's source. */
  functions: Record<string, HostFunction>;
  /** The declared tools as sandbox functions whose calls go to `target`. */
  toolFunctions(target: ToolSource): Record<string, HostFunction>;
  /** Tool name by the identifier the code calls it with. */
  toolNameOf: ReadonlyMap<string, string>;
  executeCodeTool: AnyTool;
  directTools: AnyTool[];
  /** The full declarations of some tools. */
  describe(names: readonly string[]): string;
  search(query: string, options?: { limit?: number }): ToolSearchResult[];
  /** The tools the description declares. */
  listed: readonly string[];
}

export function buildCodeTools(
  source: CodeModeToolSource,
  modes: ReadonlyMap<string, ToolMode>,
  options: CodeModeOptions,
  typecheck: CodeModeOptions['typecheck'] & string,
  run: (
    code: string,
    context: ToolExecutionContext,
    timeoutMs: number | undefined,
  ) => Promise<CodeRunResult>,
): CodeTools {
  const sourceTools = source.listTools();
  const codeTools = sourceTools.filter((tool) => (modes.get(tool.name) ?? 'code') !== 'direct');
  const directNames = new Set(
    sourceTools
      .filter((tool) => (modes.get(tool.name) ?? 'code') !== 'code')
      .map((tool) => tool.name),
  );
  // With `auto` the code is checked against the documented declarations of every tool, and the
  // description lists a part of that same text, so every type name it shows exists for the check.
  const budgeted = (options.declarations?.detail ?? 'auto') === 'auto';
  const declarations = generateDeclarations(
    codeTools,
    budgeted ? { ...options.declarations, detail: 'compact' } : options.declarations,
  );
  const identifiers = createIdentifierMap(codeTools.map((tool) => tool.name));
  const description = executeCodeDescription({
    tools: codeTools,
    typecheck,
    declarations,
    budgeted,
    pinnedTools: options.pinnedTools ?? [],
    budgetTokens: options.descriptionBudgetTokens ?? DEFAULT_DESCRIPTION_BUDGET_TOKENS,
    servers: source.servers?.() ?? [],
  });
  const byName = new Map(codeTools.map((tool) => [tool.name, tool]));
  const toolFunctions = (target: ToolSource): Record<string, HostFunction> => {
    const out: Record<string, HostFunction> = {};
    for (const binding of declarations.bindings) {
      const tool = byName.get(binding.toolName)!;
      out[binding.identifier] = async (args, context) => {
        const parsed = parseToolArguments(tool.inputSchema, args ?? {}, {
          toolName: tool.name,
          repair: false,
        });
        if (!parsed.success) throw parsed.error;
        const result = await target.callTool(tool.name, parsed.value, {
          signal: context.signal,
          ...(options.toolTimeoutMs !== undefined ? { timeoutMs: options.toolTimeoutMs } : {}),
        });
        return unwrapToolResult(tool.name, result);
      };
    }
    return out;
  };
  const describe = (names: readonly string[]): string =>
    describeTools(codeTools, names, options.declarations);
  let index: ToolSearchIndex<SourceTool> | undefined;
  const search = (query: string, searchOptions: { limit?: number } = {}): ToolSearchResult[] => {
    index ??= new ToolSearchIndex(codeTools);
    return index.search(query, searchOptions).map(({ tool }) => ({
      name: tool.name,
      identifier: identifiers.get(tool.name)!,
      description: shortenText(tool.description ?? '', SEARCH_DESCRIPTION_LENGTH),
      signature: declareSome(
        codeTools,
        [tool.name],
        'signatures',
        options.declarations ?? {},
        identifiers,
      ).text.trim(),
    }));
  };
  const functions = toolFunctions(source);
  functions[DESCRIBE_FUNCTION] = (args) => {
    const names = typeof args === 'string' ? [args] : args;
    if (!Array.isArray(names) || names.some((name) => typeof name !== 'string'))
      throw new CodeModeCallError({
        category: 'invalidArguments',
        message: 'describe: expected a tool name or an array of tool names',
      });
    return describe(names as string[]);
  };
  // Host functions take one argument: the `search(query, options)` the code sees is a wrapper.
  functions[SEARCH_FUNCTION] = (args) => {
    const [query, searchOptions] = Array.isArray(args) ? args : [args];
    if (searchOptions !== undefined && searchOptions !== null && typeof searchOptions !== 'object')
      throw new CodeModeCallError({
        category: 'invalidArguments',
        message: 'search: the second argument is { limit }',
      });
    const limit = (searchOptions as { limit?: unknown } | null)?.limit;
    return search(query as string, {
      limit: limit === undefined ? DEFAULT_SEARCH_LIMIT : (limit as number),
    });
  };
  return {
    declarations,
    functions,
    toolFunctions,
    toolNameOf: new Map(declarations.bindings.map((b) => [b.identifier, b.toolName])),
    executeCodeTool: createExecuteCodeTool(
      options.toolName ?? EXECUTE_CODE_TOOL_NAME,
      description.text,
      resolveLimits(options.limits).timeoutMs,
      run,
    ),
    directTools: directToolsOf(source, sourceTools, directNames),
    describe,
    search,
    listed: description.listed,
  };
}

/**
 * Adds `search(query, options)` to the code as a function declaration after its last line (hoisted,
 * so usable from the first line, and no line or column of the model's code moves). Code that
 * declares its own `search` at the top level keeps it.
 */
export function withSearch(code: string, declaresSearch: boolean): string {
  if (declaresSearch) return code;
  return `${code}\nfunction search(query, options) { return tools.${SEARCH_FUNCTION}([query, options]); }`;
}
