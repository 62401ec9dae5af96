import type { AnyTool } from '@toolwire/schema';
import type {
  CodeMode,
  CodeModeOptions,
  CodeRunResult,
  RunCodeOptions,
  ToolMode,
  TypecheckMode,
} from './code-mode-types.js';
import { buildCodeTools, type CodeTools } from './code-tools.js';
import { defaultExecutor, releaseDefaultExecutor, useDefaultExecutor } from './default-executor.js';
import { CodeModeClosedError, InvalidCodeModeOptionsError } from './errors.js';
import { EXECUTE_CODE_TOOL_NAME } from './execute-code-tool.js';
import { sharedTypeChecker } from './isolated-type-checker.js';
import { runCodeScript } from './run-code-script.js';
import { toolSource, type CodeModeToolSource } from './tool-source.js';

/**
 * Code mode: one `execute_code` tool whose description declares the tools as typed async
 * functions, plus the tools kept direct. Tool calls made by the code go through the source (for a
 * registry: its long-lived connections), with arguments validated against each tool's schema.
 */
export function createCodeMode(options: CodeModeOptions): CodeMode {
  const source: CodeModeToolSource = isToolArray(options.source)
    ? toolSource(options.source)
    : options.source;
  const modes = resolveModes(options);
  const checker = sharedTypeChecker();
  const defaultTypecheck = checkTypecheckMode(options.typecheck ?? 'error', 'typecheck');
  const { executor } = options;
  let closed = false;

  const run = async (code: string, runOptions: RunCodeOptions = {}): Promise<CodeRunResult> => {
    if (closed) throw new CodeModeClosedError();
    return runCodeScript(
      {
        tools: current(),
        executor: executor ?? defaultExecutor(),
        checker,
        typecheck: checkTypecheckMode(runOptions.typecheck ?? defaultTypecheck, 'typecheck'),
        limits: options.limits,
        owner: options.owner,
        toolName: options.toolName ?? EXECUTE_CODE_TOOL_NAME,
      },
      code,
      runOptions,
    );
  };
  // A host that knows who called (the forwarder) passes their tools: the code calls as them.
  const build = (): CodeTools =>
    buildCodeTools(source, modes, options, defaultTypecheck, (code, context, timeoutMs) =>
      run(code, {
        signal: context.signal,
        ...(context.tools ? { tools: context.tools } : {}),
        ...(timeoutMs !== undefined ? { limits: { timeoutMs } } : {}),
      }),
    );
  let state: CodeTools | undefined;
  const current = (): CodeTools => (state ??= build());
  // A registry says when a server's tools changed: rebuild on next use.
  const unsubscribe = source.onToolsChanged?.(() => {
    state = undefined;
  });

  current();
  if (executor === undefined) useDefaultExecutor();
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
      (executor ?? defaultExecutor()).warmUp().catch(() => {});
      checker.warmUp();
      void checker
        .check('return;', declarations.text, declarations.checkPrelude, {
          ...(options.owner !== undefined ? { owner: options.owner } : {}),
        })
        // A warm-up refused for a busy owner has nothing to report.
        .catch(() => {});
    },
    async close() {
      if (closed) return;
      closed = true;
      unsubscribe?.();
      if (executor === undefined) await releaseDefaultExecutor();
    },
  };
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

function resolveModes(options: CodeModeOptions): Map<string, ToolMode> {
  const modes = new Map<string, ToolMode>();
  if (options.excludedTools !== undefined && !Array.isArray(options.excludedTools)) {
    throw new InvalidCodeModeOptionsError({
      path: 'excludedTools',
      message: 'expected an array of tool names',
    });
  }
  for (const [index, name] of (options.excludedTools ?? []).entries()) {
    if (typeof name !== 'string')
      throw new InvalidCodeModeOptionsError({
        path: `excludedTools[${index}]`,
        message: 'expected a tool name',
      });
    modes.set(name, 'direct');
  }
  for (const [name, mode] of Object.entries(options.toolModes ?? {})) {
    if (mode !== 'direct' && mode !== 'code' && mode !== 'both') {
      throw new InvalidCodeModeOptionsError({
        path: `toolModes.${name}`,
        message: `expected "direct", "code" or "both", got ${JSON.stringify(mode)}`,
      });
    }
    modes.set(name, mode);
  }
  return modes;
}

function checkTypecheckMode(mode: unknown, path: string): TypecheckMode {
  if (mode === 'off' || mode === 'warn' || mode === 'error') return mode;
  throw new InvalidCodeModeOptionsError({
    path,
    message: `expected "off", "warn" or "error", got ${JSON.stringify(mode)}`,
  });
}

function isToolArray(source: CodeModeOptions['source']): source is readonly AnyTool[] {
  return Array.isArray(source);
}
