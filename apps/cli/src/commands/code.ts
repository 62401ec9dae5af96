import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import {
  createCodeMode,
  formatDiagnostics,
  resolveCodeModeSettings,
  runCode,
  warmUpSharedSandbox,
  type CodeRunResult,
  type TypecheckMode,
} from '@toolwire/codemode';
import type { Registry, ToolwireConfig } from '@toolwire/mcp';
import { estimateTokens, ToolwireError } from '@toolwire/schema';
import type { CliContext } from '../context.js';
import { writeLine } from '../context.js';
import { UsageError } from '../errors.js';
import { formatJson } from '../output.js';
import { withRegistry } from '../registry.js';

export interface CodeRunFlags {
  timeoutMs?: number;
  memoryMb?: number;
  maxOutputKb?: number;
  maxToolCalls?: number;
  typecheck: TypecheckMode;
}

/** The code mode settings for the model `chat` would use (`--model`, else `chat.model`). */
function settingsFor(config: ToolwireConfig, model: string | undefined) {
  return resolveCodeModeSettings(config.codeMode, model ?? config.chat?.model);
}

/** The declarations code mode gives the model for the configured tools. */
async function printCodeTypes(
  ctx: CliContext,
  registry: Registry,
  excludedTools: readonly string[],
  json: boolean,
): Promise<void> {
  // As chat's code mode builds it: tools excluded in the config stay direct tools, undeclared.
  const codeMode = createCodeMode({ source: registry, excludedTools });
  try {
    const { declarations } = codeMode;
    if (json) {
      writeLine(
        ctx.stdout,
        formatJson({
          declarations: declarations.text,
          functions: declarations.bindings.map((binding) => ({
            identifier: binding.identifier,
            tool: binding.toolName,
          })),
        }),
      );
    } else {
      ctx.stdout.write(
        declarations.text.endsWith('\n') ? declarations.text : `${declarations.text}\n`,
      );
    }
  } finally {
    await codeMode.close();
  }
}

/** Reads FILE, or standard input for `-`. A missing file is a usage error. */
export async function readScript(ctx: CliContext, file: string): Promise<string> {
  if (file === '-') return readAll(ctx.stdin);
  try {
    return readFileSync(resolve(ctx.cwd, file), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError({
      message: `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message}`,
    });
  }
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

/** Errors that mean the script could not be run as given (exit 2); the rest failed while running (exit 1). */
const INPUT_ERROR_KINDS = new Set(['typecheck', 'syntax', 'source-too-large']);

/** A failed run, carrying the exit code its kind deserves. */
class ScriptFailedError extends ToolwireError {
  constructor(
    message: string,
    readonly inputError: boolean,
  ) {
    super(inputError ? 'script_input' : 'script_failed', { message });
    this.name = 'ScriptFailedError';
  }
}

async function runCodeCommand(
  ctx: CliContext,
  registry: Registry,
  code: string,
  flags: CodeRunFlags,
  json: boolean,
): Promise<void> {
  const controller = new AbortController();
  const onInterrupt = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onInterrupt);
  let result: CodeRunResult;
  try {
    result = await runCode(code, {
      source: registry,
      typecheck: flags.typecheck,
      signal: controller.signal,
      limits: {
        ...(flags.timeoutMs !== undefined ? { timeoutMs: flags.timeoutMs } : {}),
        ...(flags.memoryMb !== undefined ? { memoryBytes: flags.memoryMb * 1024 * 1024 } : {}),
        ...(flags.maxOutputKb !== undefined
          ? { maxLogBytes: flags.maxOutputKb * 1024, maxResultBytes: flags.maxOutputKb * 1024 }
          : {}),
        ...(flags.maxToolCalls !== undefined ? { maxToolCalls: flags.maxToolCalls } : {}),
      },
    });
  } finally {
    process.removeListener('SIGINT', onInterrupt);
  }

  if (json) {
    writeLine(ctx.stdout, formatJson(result));
  } else {
    printRunForPeople(ctx, result);
  }
  if (!result.ok) {
    const error = result.error;
    const kind = error?.kind ?? 'runtime';
    const where =
      error?.line !== undefined && !/\bline \d/.test(error.message)
        ? ` (line ${error.line}, column ${error.column ?? 0})`
        : '';
    const message =
      kind === 'typecheck'
        ? `the script has type errors and was not run: ${formatDiagnostics(result.diagnostics).split('\n').join('; ')}`
        : `script failed (${kind})${where}: ${error?.message ?? 'no message'}`;
    throw new ScriptFailedError(message, INPUT_ERROR_KINDS.has(kind));
  }
}

function printRunForPeople(ctx: CliContext, result: CodeRunResult): void {
  // With --typecheck warn the code ran despite these; with error they are in the failure line.
  if (result.error?.kind !== 'typecheck' && result.diagnostics.length > 0) {
    for (const line of formatDiagnostics(result.diagnostics).split('\n')) {
      ctx.stderr.write(`${ctx.err.yellow('warning:')} ${line}\n`);
    }
  }
  for (const log of result.logs) {
    const prefix =
      log.level === 'log' || log.level === 'info' ? '' : ctx.out.yellow(`[${log.level}] `);
    writeLine(ctx.stdout, `${prefix}${log.message}`);
  }
  if (result.logsTruncated) {
    ctx.stderr.write(
      `${ctx.err.yellow('warning:')} console output was cut at the --max-output-kb limit\n`,
    );
  }
  if (result.ok && result.value !== undefined) {
    writeLine(
      ctx.stdout,
      typeof result.value === 'string' ? result.value : formatJson(result.value),
    );
  }
}

/** `toolwire code types`. */
export async function codeTypesCommand(
  ctx: CliContext,
  config: ToolwireConfig,
  json: boolean,
): Promise<void> {
  const { excludedTools } = settingsFor(config, undefined);
  await withRegistry(ctx, config, (registry) => printCodeTypes(ctx, registry, excludedTools, json));
}

/**
 * `toolwire code prompt`: the `execute_code` tool as the model receives it (name, description,
 * input and output schema), built as `chat` builds it for the model; what it costs goes to stderr.
 */
export async function codePromptCommand(
  ctx: CliContext,
  config: ToolwireConfig,
  flags: { model?: string },
  json: boolean,
): Promise<void> {
  const settings = settingsFor(config, flags.model);
  await withRegistry(ctx, config, async (registry) => {
    const codeMode = createCodeMode({
      source: registry,
      excludedTools: settings.excludedTools,
      pinnedTools: settings.pinnedTools,
    });
    try {
      const tool = codeMode.executeCodeTool;
      const prompt = {
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
      };
      if (json) writeLine(ctx.stdout, formatJson(prompt));
      else
        ctx.stdout.write(
          `${prompt.name}\n\n${prompt.description}\n\ninput schema:\n${formatJson(prompt.inputSchema)}\n` +
            (prompt.outputSchema ? `\noutput schema:\n${formatJson(prompt.outputSchema)}\n` : ''),
        );
      const codeTools = codeMode.declarations.bindings.length;
      const direct = codeMode.directTools.length;
      ctx.stderr.write(
        `${tool.name}: about ${estimateTokens(JSON.stringify(prompt))} tokens; declares ${codeMode.listedTools.length} of ${codeTools} tools (the rest through search())` +
          `${direct > 0 ? `; ${direct} tool${direct === 1 ? ' stays' : 's stay'} direct` : ''}` +
          `${settings.enabled ? '' : '; code mode is off for this model in the config'}\n`,
      );
    } finally {
      await codeMode.close();
    }
  });
}

/** `toolwire code run FILE`. */
export async function codeRunCommand(
  ctx: CliContext,
  config: ToolwireConfig,
  script: string,
  flags: CodeRunFlags,
  json: boolean,
): Promise<void> {
  // The sandbox and the type checker load while the MCP servers start (the command's action
  // starts them even earlier; this is for other callers of this function).
  warmUpSharedSandbox({ typecheck: flags.typecheck !== 'off' });
  // Servers the tool cache knows start only when the script calls one of their tools.
  await withRegistry(
    ctx,
    config,
    (registry) => runCodeCommand(ctx, registry, script, flags, json),
    {
      lazy: true,
    },
  );
}
