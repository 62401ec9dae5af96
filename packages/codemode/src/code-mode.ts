import {
  DEFAULT_SEARCH_LIMIT,
  InvalidToolArgumentsError,
  ToolExecutionError,
  ToolSearchIndex,
  parseToolArguments,
  toolContent,
  toolFailureFromError,
  ToolwireError,
  type AnyTool,
  type JsonSchema,
  type ToolContentOutput,
  type ToolExecutionContext,
  type ToolSource,
} from '@toolwire/schema';
import {
  createQuickJSExecutor,
  resolveLimits,
  sourceTooLarge,
  type ExecutionErrorInfo,
  type ExecutionLimits,
  type Executor,
  type HostFunction,
  type LogEntry,
  type ToolCallRecord,
} from '@toolwire/executor';
import {
  declareSome,
  describeTools,
  generateDeclarations,
  type Declarations,
  type GenerateDeclarationsOptions,
} from './declarations.js';
import {
  DEFAULT_DESCRIPTION_BUDGET_TOKENS,
  executeCodeDescription,
} from './execute-code-description.js';
import { createIdentifierMap } from './identifiers.js';
import { shortenText } from './schema-to-typescript.js';
import { declaresTopLevel, normalizeScript, stripTypes } from './script.js';
import { sharedTypeChecker } from './isolated-type-checker.js';
import { formatDiagnostics, type CodeDiagnostic } from './type-checker.js';
import { toolSource, type CodeModeToolSource, type SourceTool } from './tool-source.js';
import { unwrapToolResult } from './unwrap-tool-result.js';

export type ToolMode = 'direct' | 'code' | 'both';
export type TypecheckMode = 'off' | 'warn' | 'error';

export const EXECUTE_CODE_TOOL_NAME = 'execute_code';

/** One result of `search()` in the code. */
export interface ToolSearchResult {
  /** The tool's name (as the source lists it). */
  name: string;
  /** The function the code calls. */
  identifier: string;
  /** The description's first sentence or so (`describe()` has all of it). */
  description: string;
  /** Its declaration without documentation (`declare function …`). */
  signature: string;
}

export interface CodeModeOptions {
  /** A registry (`@toolwire/mcp`), any `CodeModeToolSource`, or plain tools with `execute`. */
  source: CodeModeToolSource | readonly AnyTool[];
  /** Tools kept as direct tools only, beside `execute_code` (images, tools a model was trained on). */
  excludedTools?: readonly string[];
  /** Per tool: `code` (default: only inside `execute_code`), `direct` (only as its own tool) or `both`. */
  toolModes?: Readonly<Record<string, ToolMode>>;
  /**
   * Runs the code. Default: one QuickJS executor shared by every code mode of the process, made on
   * first use and closed when the last code mode using it is closed. Code modes made per request
   * (a server's) therefore share one worker pool instead of each starting its own.
   */
  executor?: Executor;
  /** Type-check the code before running it: `error` (default) refuses to run code with type errors. */
  typecheck?: TypecheckMode;
  /** Sandbox limits for each run (see `@toolwire/executor`). */
  limits?: Partial<ExecutionLimits>;
  /** Timeout of each tool call made by the code (the source's default when absent). */
  toolTimeoutMs?: number;
  /** How declarations are written (description length, depth, doc comments). */
  declarations?: GenerateDeclarationsOptions;
  /**
   * The most the `execute_code` description may cost (estimated tokens, default 1300): with
   * `declarations.detail: 'auto'` it declares as many tools as fit, the rest are found with
   * `search()` in the code. An explicit detail level declares every tool whatever it costs.
   */
  descriptionBudgetTokens?: number;
  /** Tools declared in the description first, before the others (names as the source lists them). */
  pinnedTools?: readonly string[];
  /** Name of the code tool (default `execute_code`). */
  toolName?: string;
}

export interface RunCodeOptions {
  typecheck?: TypecheckMode;
  limits?: Partial<ExecutionLimits>;
  signal?: AbortSignal;
  /**
   * Where this run's tool calls go instead of the code mode's source: the same tools as one caller
   * may use them (the forwarder's `context.tools`, which calls as that caller). The code is still
   * checked against the code mode's declarations.
   */
  tools?: ToolSource;
}

export type CodeRunErrorKind = ExecutionErrorInfo['kind'] | 'typecheck';

/** What running a script gives: console output, the returned value and every tool call made. */
export interface CodeRunResult {
  ok: boolean;
  value?: unknown;
  logs: LogEntry[];
  logsTruncated: boolean;
  /** Tool calls in the order made, by tool name (not the identifier the script used). */
  toolCalls: ToolCallRecord[];
  /** Type errors found before running (with `typecheck: 'warn'` the code ran anyway). */
  diagnostics: CodeDiagnostic[];
  error?: {
    kind: CodeRunErrorKind;
    message: string;
    line?: number;
    column?: number;
    tool?: string;
  };
  durationMs: number;
  /** Time spent type-checking (0 when off). */
  typecheckMs: number;
}

export interface CodeMode {
  /** What to give the model: `execute_code` first, then the direct tools (current tool list). */
  readonly tools: AnyTool[];
  readonly executeCodeTool: AnyTool;
  /** Tools reachable only directly (excluded or `direct`), and those offered both ways. */
  readonly directTools: AnyTool[];
  /** The declarations of every code tool, as the model's code is type-checked against them. */
  readonly declarations: Declarations;
  /** The tools the `execute_code` description declares; the others are reached through `search()`. */
  readonly listedTools: readonly string[];
  /** Tools matching a query, best first: what `search()` in the code returns. */
  search(query: string, options?: { limit?: number }): ToolSearchResult[];
  /** Type-checks, strips and runs a script against the code-mode tools. */
  run(code: string, options?: RunCodeOptions): Promise<CodeRunResult>;
  /**
   * Re-reads the source's tools and regenerates the declarations. Happens by itself when the
   * source has `onToolsChanged` (a registry does); call it after changing a plain source.
   */
  refresh(): void;
  /**
   * Does the one-time work of the first type check now (parsing TypeScript's lib files and the
   * declarations), so the model's first `execute_code` call does not wait for it.
   */
  warmUp(): void;
  /**
   * Stops following the source's tool changes and, when this was the last code mode using the
   * shared default executor, closes it. A given `executor` is left to its owner.
   */
  close(): Promise<void>;
}

/**
 * Code mode: one `execute_code` tool whose description declares the tools as typed async
 * functions, plus the tools kept direct. Tool calls made by the code go through the source (for a
 * registry: its long-lived connections), with arguments validated against each tool's schema.
 */
export function createCodeMode(options: CodeModeOptions): CodeMode {
  const source = isToolArray(options.source) ? toolSource(options.source) : options.source;
  const modes = resolveModes(options);
  const checker = sharedTypeChecker();
  const defaultTypecheck = checkTypecheckMode(options.typecheck ?? 'error', 'typecheck');
  const executor = options.executor;
  let closed = false;

  /** Everything that follows from the source's current tool list. */
  const build = () => {
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
      typecheck: defaultTypecheck,
      declarations,
      budgeted,
      pinnedTools: options.pinnedTools ?? [],
      budgetTokens: options.descriptionBudgetTokens ?? DEFAULT_DESCRIPTION_BUDGET_TOKENS,
      servers: source.servers?.() ?? [],
    });
    const byName = new Map(codeTools.map((tool) => [tool.name, tool]));
    /** The declared tools as sandbox functions whose calls go to `target`. */
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
    const functions = toolFunctions(source);
    const describe = (names: readonly string[]) =>
      describeTools(codeTools, names, options.declarations);
    functions[DESCRIBE_FUNCTION] = (args) => {
      const names = typeof args === 'string' ? [args] : args;
      if (!Array.isArray(names) || names.some((name) => typeof name !== 'string'))
        throw new TypeError('describe: expected a tool name or an array of tool names');
      return describe(names as string[]);
    };
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
    // Host functions take one argument: the `search(query, options)` the code sees is a wrapper.
    functions[SEARCH_FUNCTION] = (args) => {
      const [query, searchOptions] = Array.isArray(args) ? args : [args];
      if (
        searchOptions !== undefined &&
        searchOptions !== null &&
        typeof searchOptions !== 'object'
      )
        throw new TypeError('search: the second argument is { limit }');
      const limit = (searchOptions as { limit?: unknown } | null)?.limit;
      return search(query as string, {
        limit: limit === undefined ? DEFAULT_SEARCH_LIMIT : (limit as number),
      });
    };
    const toolNameOf = new Map(declarations.bindings.map((b) => [b.identifier, b.toolName]));
    const executeCodeTool = createExecuteCodeTool(
      options.toolName ?? EXECUTE_CODE_TOOL_NAME,
      description.text,
      (code, context) =>
        run(code, { signal: context.signal, ...(context.tools ? { tools: context.tools } : {}) }),
    );
    const directTools = directToolsOf(source, sourceTools, directNames);
    return {
      declarations,
      functions,
      toolFunctions,
      toolNameOf,
      executeCodeTool,
      directTools,
      describe,
      search,
      listed: description.listed,
    };
  };
  let state: ReturnType<typeof build> | undefined;
  const current = () => (state ??= build());
  // A registry says when a server's tools changed: rebuild on next use.
  const unsubscribe = source.onToolsChanged?.(() => {
    state = undefined;
  });

  const run = async (code: string, runOptions: RunCodeOptions = {}): Promise<CodeRunResult> => {
    if (closed) throw new CodeModeClosedError();
    const started = performance.now();
    const state = current();
    const { declarations, toolNameOf, describe } = state;
    // A run for someone else (the forwarder's caller): its calls go to their view of the tools.
    const functions = runOptions.tools
      ? { ...state.functions, ...state.toolFunctions(runOptions.tools) }
      : state.functions;
    const mode = checkTypecheckMode(runOptions.typecheck ?? defaultTypecheck, 'typecheck');
    if (typeof code !== 'string') {
      throw new InvalidToolArgumentsError({
        toolName: options.toolName ?? EXECUTE_CODE_TOOL_NAME,
        problem: 'invalid',
        issues: [
          { pointer: '/code', message: 'expected a string of TypeScript code', expected: 'string' },
        ],
      });
    }
    // Checked before anything parses the code: a huge script must not hold up the host.
    const { maxSourceBytes } = resolveLimits(options.limits, runOptions.limits);
    const tooLarge = sourceTooLarge(code, maxSourceBytes);
    if (tooLarge) {
      return {
        ok: false,
        logs: [],
        logsTruncated: false,
        toolCalls: [],
        diagnostics: [],
        error: { kind: tooLarge.kind, message: tooLarge.message },
        durationMs: performance.now() - started,
        typecheckMs: 0,
      };
    }
    const script = normalizeScript(code);
    let diagnostics: CodeDiagnostic[] = [];
    let typecheckMs = 0;
    if (mode !== 'off') {
      const checkStarted = performance.now();
      diagnostics = await checker.check(script.body, declarations.text, declarations.checkPrelude, {
        maxSourceBytes,
      });
      typecheckMs = performance.now() - checkStarted;
      // Problems in the generated declarations are ours, not the script's: they are reported but
      // never stop a run.
      const blocking = diagnostics.filter((diagnostic) => diagnostic.origin === 'script');
      if (mode === 'error' && blocking.length > 0) {
        return {
          ok: false,
          logs: [],
          logsTruncated: false,
          toolCalls: [],
          diagnostics,
          error: {
            kind: 'typecheck',
            message: `The code has type errors and was not run:\n${formatDiagnostics(blocking)}${declarationsOfToolsAt(script.body, blocking, declarations, describe)}`,
            line: blocking[0]!.line,
            column: blocking[0]!.column,
          },
          durationMs: performance.now() - started,
          typecheckMs,
        };
      }
    }
    const stripped = stripTypes(script.body);
    if (!stripped.ok) {
      const first = stripped.unsupported[0]!;
      return {
        ok: false,
        logs: [],
        logsTruncated: false,
        toolCalls: [],
        diagnostics,
        error: {
          kind: 'syntax',
          message: `TypeScript syntax that needs compiling (enum, namespace, parameter properties) is not supported: "${first.text}" at line ${first.line}, column ${first.column}. Use plain objects and string-literal unions instead.`,
          line: first.line,
          column: first.column,
        },
        durationMs: performance.now() - started,
        typecheckMs,
      };
    }
    const result = await (executor ?? defaultExecutor()).run(
      withSearch(stripped.code, script.body),
      {
        functions,
        ...(options.limits || runOptions.limits
          ? { limits: { ...options.limits, ...runOptions.limits } }
          : {}),
        ...(runOptions.signal ? { signal: runOptions.signal } : {}),
      },
    );
    const toolCalls = result.toolCalls
      .filter((call) => call.name !== DESCRIBE_FUNCTION && call.name !== SEARCH_FUNCTION)
      .map((call) => ({ ...call, name: toolNameOf.get(call.name) ?? call.name }));
    return {
      ok: result.ok,
      ...(result.ok ? { value: result.value } : {}),
      logs: result.logs,
      logsTruncated: result.logsTruncated,
      toolCalls,
      diagnostics,
      ...(result.error
        ? {
            error: {
              kind: result.error.kind,
              message: result.error.message,
              ...(result.error.line !== undefined ? { line: result.error.line } : {}),
              ...(result.error.column !== undefined ? { column: result.error.column } : {}),
              ...(result.error.tool !== undefined
                ? { tool: toolNameOf.get(result.error.tool) ?? result.error.tool }
                : {}),
            },
          }
        : {}),
      durationMs: performance.now() - started,
      typecheckMs,
    };
  };

  current();
  if (executor === undefined) sharedUsers++;
  return {
    get tools() {
      const { executeCodeTool, directTools } = current();
      return [executeCodeTool, ...directTools];
    },
    get executeCodeTool() {
      return current().executeCodeTool;
    },
    get directTools() {
      return current().directTools;
    },
    get declarations() {
      return current().declarations;
    },
    get listedTools() {
      return current().listed;
    },
    search(query, searchOptions) {
      return current().search(query, searchOptions);
    },
    run,
    refresh() {
      state = undefined;
      current();
    },
    warmUp() {
      const { declarations } = current();
      void checker.check('return;', declarations.text, declarations.checkPrelude);
    },
    async close() {
      if (closed) return;
      closed = true;
      unsubscribe?.();
      if (executor === undefined) await releaseDefaultExecutor();
    },
  };
}

function createExecuteCodeTool(
  name: string,
  description: string,
  run: (code: string, context: ToolExecutionContext) => Promise<CodeRunResult>,
): AnyTool {
  return {
    name,
    description,
    inputSchema: {
      type: 'object',
      properties: {
        code: {
          type: 'string',
          description: 'TypeScript function body',
        },
      },
      required: ['code'],
      additionalProperties: false,
    },
    outputSchema: EXECUTE_CODE_OUTPUT_SCHEMA,
    execute: async (args: { code: string }, context): Promise<ToolContentOutput> => {
      // A host that knows who called (the forwarder) passes their tools: the code calls as them.
      const result = await run(args.code, context);
      return toolContent([{ type: 'text', text: formatRunResult(result) }], {
        isError: !result.ok,
        structuredContent: structuredRunResult(result),
      });
    },
  };
}

/**
 * The `outputSchema` of `execute_code`: what MCP clients of the gateway get as `structuredContent`
 * beside the text the model reads.
 */
export const EXECUTE_CODE_OUTPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    ok: { type: 'boolean', description: 'Whether the code ran to the end' },
    output: {
      type: 'string',
      description: 'The console output, one line per console call (warn/error lines prefixed)',
    },
    returned: { description: 'The value the code returned (null when nothing, or when it failed)' },
    logs: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          level: { type: 'string', enum: ['log', 'info', 'warn', 'error', 'debug'] },
          message: { type: 'string' },
        },
        required: ['level', 'message'],
      },
    },
    toolCalls: {
      type: 'array',
      description: 'The tool calls the code made, in order',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          outcome: { type: 'string', enum: ['ok', 'error', 'cancelled'] },
          durationMs: { type: 'number' },
          error: {
            type: 'object',
            properties: { message: { type: 'string' }, category: { type: 'string' } },
            required: ['message', 'category'],
          },
        },
        required: ['name', 'outcome', 'durationMs'],
      },
    },
    error: {
      type: 'object',
      description: 'Why the run failed (absent when it succeeded)',
      properties: {
        kind: { type: 'string' },
        message: { type: 'string' },
        line: { type: 'integer' },
        column: { type: 'integer' },
        tool: { type: 'string' },
      },
      required: ['kind', 'message'],
    },
    diagnostics: {
      type: 'array',
      description: 'Type errors found before running',
      items: {
        type: 'object',
        properties: {
          line: { type: 'integer' },
          column: { type: 'integer' },
          code: { type: 'integer' },
          message: { type: 'string' },
          origin: { type: 'string', enum: ['script', 'declarations'] },
        },
        required: ['line', 'column', 'code', 'message', 'origin'],
      },
    },
  },
  required: ['ok', 'output', 'returned', 'logs', 'toolCalls'],
};

/** A run as `execute_code`'s `structuredContent` (matches `EXECUTE_CODE_OUTPUT_SCHEMA`). */
export function structuredRunResult(result: CodeRunResult): Record<string, unknown> {
  return {
    ok: result.ok,
    output: result.logs
      .map((log) =>
        log.level === 'log' || log.level === 'info' ? log.message : `[${log.level}] ${log.message}`,
      )
      .join('\n'),
    returned: result.ok ? (result.value ?? null) : null,
    logs: result.logs.map((log) => ({ level: log.level, message: log.message })),
    toolCalls: result.toolCalls.map((call) => ({
      name: call.name,
      outcome: call.outcome,
      durationMs: call.durationMs,
      ...(call.error
        ? { error: { message: call.error.message, category: call.error.category } }
        : {}),
    })),
    ...(result.error ? { error: result.error } : {}),
    ...(result.diagnostics.length > 0
      ? {
          diagnostics: result.diagnostics.map((d) => ({
            line: d.line,
            column: d.column,
            code: d.code,
            message: d.message,
            origin: d.origin,
          })),
        }
      : {}),
  };
}

/** `run` was called on a code mode after `close()`. */
export class CodeModeClosedError extends ToolwireError {
  constructor() {
    super('code_mode_closed', {
      message: 'This code mode is closed; create a new one to run code',
    });
    this.name = 'CodeModeClosedError';
  }
}

let sharedExecutor: Executor | undefined;
/** Code modes using the shared executor and not yet closed. */
let sharedUsers = 0;

function defaultExecutor(): Executor {
  sharedExecutor ??= createQuickJSExecutor();
  return sharedExecutor;
}

async function releaseDefaultExecutor(): Promise<void> {
  sharedUsers = Math.max(0, sharedUsers - 1);
  if (sharedUsers === 0) await closeDefaultExecutor();
}

/**
 * Closes the shared default executor now, whoever still uses it (it is made again if code mode
 * needs it later). Normally not needed: it closes when the last code mode using it is closed.
 */
export async function closeDefaultExecutor(): Promise<void> {
  const executor = sharedExecutor;
  sharedExecutor = undefined;
  await executor?.close();
}

/** The tools of `createCodeModeTools`, with `close()` to release what the code mode holds. */
export type CodeModeTools = AnyTool[] & { close(): Promise<void> };

/**
 * The tools to give a model in code mode: `execute_code` and the direct ones. Call `close()` when
 * done with them: it unsubscribes from the source's `onToolsChanged` and releases the shared
 * executor (a server making tools per request would otherwise keep one listener per request).
 */
export function createCodeModeTools(options: CodeModeOptions): CodeModeTools {
  const codeMode = createCodeMode(options);
  return Object.assign([...codeMode.tools], { close: () => codeMode.close() });
}

/**
 * Runs one script against a source's tools (what `toolwire code run` does), returning console
 * output, the returned value and the tool calls. Without `executor` it uses the shared default one.
 */
export async function runCode(
  code: string,
  options: Omit<CodeModeOptions, 'excludedTools' | 'toolModes' | 'toolName'> & RunCodeOptions,
): Promise<CodeRunResult> {
  const codeMode = createCodeMode(options);
  try {
    return await codeMode.run(code, {
      ...(options.typecheck ? { typecheck: options.typecheck } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } finally {
    await codeMode.close();
  }
}

/** Name of the sandbox function returning tools' full declarations. */
const DESCRIBE_FUNCTION = 'describe';
/** Name of the host function behind `search(query, options)` (host functions take one argument). */
const SEARCH_FUNCTION = '__toolwire_search';
const SEARCH_DESCRIPTION_LENGTH = 160;

/**
 * Adds `search(query, options)` to the code as a function declaration after its last line (hoisted,
 * so usable from the first line, and no line or column of the model's code moves). Code that
 * declares its own `search` at the top level keeps it.
 */
function withSearch(code: string, body: string): string {
  if (declaresTopLevel(body, 'search')) return code;
  return `${code}\nfunction search(query, options) { return tools.${SEARCH_FUNCTION}([query, options]); }`;
}

/**
 * After type errors: the full declarations of the tools called on the failing lines, so the model
 * sees the expected shapes (and their documentation) even when the description shows only types.
 */
function declarationsOfToolsAt(
  body: string,
  diagnostics: readonly CodeDiagnostic[],
  declarations: Declarations,
  describe: (names: readonly string[]) => string,
): string {
  const lines = body.split('\n');
  const failing = [...new Set(diagnostics.map((d) => lines[d.line - 1] ?? ''))].join('\n');
  const called = declarations.bindings
    .filter((binding) => new RegExp(`\\b${binding.identifier}\\b`).test(failing))
    .slice(0, 5)
    .map((binding) => binding.identifier);
  if (called.length === 0) return '';
  return `\n\nDeclarations of the tools on those lines:\n\`\`\`ts\n${describe(called).trimEnd()}\n\`\`\``;
}

/** The text a model reads after a run. */
export function formatRunResult(result: CodeRunResult): string {
  const sections: string[] = [];
  if (result.error) sections.push(`Error (${result.error.kind}): ${result.error.message}`);
  else if (result.diagnostics.length > 0)
    sections.push(`Type warnings:\n${formatDiagnostics(result.diagnostics)}`);
  if (result.logs.length > 0) {
    const lines = result.logs.map((log) =>
      log.level === 'log' ? log.message : `[${log.level}] ${log.message}`,
    );
    sections.push(
      `Console output:\n${lines.join('\n')}${result.logsTruncated ? '\n[further output was dropped]' : ''}`,
    );
  }
  if (result.ok)
    sections.push(
      `Returned value:\n${result.value === undefined ? 'undefined' : JSON.stringify(result.value, null, 2)}`,
    );
  else if (result.toolCalls.length > 0) {
    sections.push(
      `Tool calls made before the failure:\n${result.toolCalls
        .map(
          (call) =>
            `- ${call.name}: ${call.outcome}${call.error ? ` (${call.error.message})` : ''}`,
        )
        .join('\n')}`,
    );
  }
  return sections.join('\n\n');
}

function resolveModes(options: CodeModeOptions): Map<string, ToolMode> {
  const modes = new Map<string, ToolMode>();
  if (options.excludedTools !== undefined && !Array.isArray(options.excludedTools)) {
    throw new TypeError('Invalid excludedTools: expected an array of tool names');
  }
  for (const [index, name] of (options.excludedTools ?? []).entries()) {
    if (typeof name !== 'string')
      throw new TypeError(`Invalid excludedTools[${index}]: expected a tool name`);
    modes.set(name, 'direct');
  }
  for (const [name, mode] of Object.entries(options.toolModes ?? {})) {
    if (mode !== 'direct' && mode !== 'code' && mode !== 'both') {
      throw new TypeError(
        `Invalid toolModes.${name}: expected "direct", "code" or "both", got ${JSON.stringify(mode)}`,
      );
    }
    modes.set(name, mode);
  }
  return modes;
}

function checkTypecheckMode(mode: unknown, path: string): TypecheckMode {
  if (mode === 'off' || mode === 'warn' || mode === 'error') return mode;
  throw new TypeError(
    `Invalid ${path}: expected "off", "warn" or "error", got ${JSON.stringify(mode)}`,
  );
}

function isToolArray(source: CodeModeOptions['source']): source is readonly AnyTool[] {
  return Array.isArray(source);
}

function directToolsOf(
  source: CodeModeToolSource,
  sourceTools: readonly SourceTool[],
  names: ReadonlySet<string>,
): AnyTool[] {
  if (names.size === 0) return [];
  if (source.asTools) return source.asTools().filter((tool) => names.has(tool.name));
  return sourceTools
    .filter((tool) => names.has(tool.name))
    .map((tool) => ({
      name: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
      ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
      execute: async (args: Record<string, unknown>, context) => {
        const result = await source.callTool(tool.name, args, { signal: context.signal });
        if (result.isError) throw toolErrorOf(tool.name, result);
        return toolContent(
          (result.content ?? []).map((block) =>
            block.type === 'text'
              ? { type: 'text' as const, text: String(block.text) }
              : block.type === 'image'
                ? {
                    type: 'image' as const,
                    data: String(block.data),
                    mediaType: String(block.mimeType),
                  }
                : { type: 'json' as const, value: block },
          ),
          result.structuredContent !== undefined
            ? { structuredContent: result.structuredContent }
            : {},
        );
      },
    }));
}

function toolErrorOf(
  toolName: string,
  result: Parameters<typeof unwrapToolResult>[1],
): ToolExecutionError {
  try {
    unwrapToolResult(toolName, result);
  } catch (error) {
    if (error instanceof ToolExecutionError) return error;
    return new ToolExecutionError({ ...toolFailureFromError(error) });
  }
  return new ToolExecutionError({ category: 'unknown', message: `${toolName} reported an error` });
}
