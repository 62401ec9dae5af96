// One run of model code, step by step: size check, normalisation, the type check (in the shared
// checker, in the owner's turn), type stripping, the sandbox run, and the result by tool name.
import { InvalidToolArgumentsError } from '@toolwire/schema';
import {
  WaitAbortedError,
  resolveLimits,
  sourceTooLarge,
  type ExecutionLimits,
  type Executor,
} from '@toolwire/executor';
import { formatDiagnostics, type CodeDiagnostic } from './code-diagnostic.js';
import type { CodeRunResult, RunCodeOptions, TypecheckMode } from './code-mode-types.js';
import { DESCRIBE_FUNCTION, SEARCH_FUNCTION, withSearch, type CodeTools } from './code-tools.js';
import type { Declarations } from './declarations.js';
import type { IsolatedTypeChecker } from './isolated-type-checker.js';
import { declaresTopLevel, normalizeScript, stripTypes } from './script.js';

export interface RunContext {
  tools: CodeTools;
  executor: Executor;
  checker: IsolatedTypeChecker;
  /** This run's mode (the run's own over the code mode's). */
  typecheck: TypecheckMode;
  limits: Partial<ExecutionLimits> | undefined;
  owner: string | undefined;
  toolName: string;
}

/** A run that ended before the sandbox: only what was found so far. */
function stopped(
  started: number,
  error: NonNullable<CodeRunResult['error']>,
  extra: Partial<CodeRunResult> = {},
): CodeRunResult {
  return {
    ok: false,
    logs: [],
    logsTruncated: false,
    toolCalls: [],
    diagnostics: [],
    error,
    durationMs: performance.now() - started,
    typecheckMs: 0,
    typecheckQueuedMs: 0,
    queuedMs: 0,
    ...extra,
  };
}

export async function runCodeScript(
  context: RunContext,
  code: string,
  runOptions: RunCodeOptions,
): Promise<CodeRunResult> {
  const started = performance.now();
  const { tools, checker } = context;
  const owner = runOptions.owner ?? context.owner;
  // A run for someone else (the forwarder's caller): its calls go to their view of the tools.
  const functions = runOptions.tools
    ? { ...tools.functions, ...tools.toolFunctions(runOptions.tools) }
    : tools.functions;
  if (typeof code !== 'string') {
    throw new InvalidToolArgumentsError({
      toolName: context.toolName,
      problem: 'invalid',
      issues: [
        { pointer: '/code', message: 'expected a string of TypeScript code', expected: 'string' },
      ],
    });
  }
  // Checked before anything parses the code: a huge script must not hold up the host.
  const { maxSourceBytes } = resolveLimits(context.limits, runOptions.limits);
  const tooLarge = sourceTooLarge(code, maxSourceBytes);
  if (tooLarge) return stopped(started, { kind: tooLarge.kind, message: tooLarge.message });
  const script = normalizeScript(code);
  let diagnostics: CodeDiagnostic[] = [];
  let typecheckMs = 0;
  let typecheckQueuedMs = 0;
  {
    const mode = context.typecheck;
    if (mode !== 'off') {
      let outcome;
      try {
        outcome = await checker.checkTimed(
          script.body,
          tools.declarations.text,
          tools.declarations.checkPrelude,
          {
            maxSourceBytes,
            ...(owner !== undefined ? { owner } : {}),
            ...(runOptions.signal ? { signal: runOptions.signal } : {}),
          },
        );
      } catch (error) {
        if (!(error instanceof WaitAbortedError)) throw error;
        return stopped(started, {
          kind: 'cancelled',
          message: 'The run was cancelled by the caller before it finished.',
        });
      }
      ({ diagnostics } = outcome);
      typecheckMs = outcome.checkMs;
      typecheckQueuedMs = outcome.queuedMs;
      // Problems in the generated declarations are ours, not the script's: they are reported but
      // never stop a run.
      const blocking = diagnostics.filter((diagnostic) => diagnostic.origin === 'script');
      if (mode === 'error' && blocking.length > 0) {
        return stopped(
          started,
          {
            kind: 'typecheck',
            message: `The code has type errors and was not run:\n${formatDiagnostics(blocking)}${declarationsOfToolsAt(script.body, blocking, tools.declarations, tools.describe)}`,
            line: blocking[0]!.line,
            column: blocking[0]!.column,
          },
          { diagnostics, typecheckMs, typecheckQueuedMs },
        );
      }
    }
  }
  const typed = { diagnostics, typecheckMs, typecheckQueuedMs };
  const stripped = stripTypes(script.body);
  if (stripped.syntaxError) {
    const { message, line, column } = stripped.syntaxError;
    return stopped(
      started,
      {
        kind: 'syntax',
        message: `SyntaxError: ${message} at line ${line}, column ${column}`,
        line,
        column,
      },
      typed,
    );
  }
  if (!stripped.ok) {
    const first = stripped.unsupported[0]!;
    return stopped(
      started,
      {
        kind: 'syntax',
        message: `TypeScript syntax that needs compiling (enum, namespace, parameter properties, <T>value casts) is not supported: "${first.text}" at line ${first.line}, column ${first.column}. Use plain objects, string-literal unions and "value as T" instead.`,
        line: first.line,
        column: first.column,
      },
      typed,
    );
  }
  const result = await context.executor.run(
    withSearch(stripped.code, declaresTopLevel(stripped.code, 'search')),
    {
      functions,
      ...(context.limits || runOptions.limits
        ? { limits: { ...context.limits, ...runOptions.limits } }
        : {}),
      ...(runOptions.signal ? { signal: runOptions.signal } : {}),
      ...(owner !== undefined ? { owner } : {}),
    },
  );
  const { toolNameOf } = tools;
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
    typecheckQueuedMs,
    queuedMs: result.queuedMs,
  };
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
