import { Command, CommanderError, InvalidArgumentError } from 'commander';
import type { CliContext, GlobalOptions } from './context.js';
import { resolveConfig } from './config.js';
import { describeError, EXIT_OK, EXIT_USAGE, exitCodeFor } from './errors.js';
import { withRegistry } from './registry.js';
import {
  callToolCommand,
  parseArgsFlag,
  printToolList,
  toolListDocument,
} from './commands/tools.js';
import { formatJson } from './output.js';
import { writeLine } from './context.js';

export const VERSION = '0.1.0';

/** Positive integer flag values (`--timeout-ms 500`); anything else is a usage error. */
export function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) <= 0) {
    throw new InvalidArgumentError('expected a positive whole number.');
  }
  return Number(value);
}

function globals(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

function loadFor(ctx: CliContext, command: Command) {
  const options = globals(command);
  return resolveConfig({
    ...(options.config !== undefined ? { configFile: options.config } : {}),
    cwd: ctx.cwd,
    onWarning: (message) => ctx.stderr.write(`${ctx.err.yellow('warning:')} ${message}\n`),
  });
}

export function createProgram(ctx: CliContext): Command {
  const program = new Command('toolwire')
    .description(
      'List and call tools, run code mode scripts, and chat with a model that uses them.',
    )
    .version(VERSION, '-v, --version')
    .option(
      '--config <file>',
      'configuration file (default: ./toolwire.config.json, else built-in)',
    )
    .option('--json', 'machine-readable output on stdout (logs stay on stderr)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
      // Commander's messages can span lines ("(Did you mean tools?)"): keep them to one.
      outputError: (text, write) =>
        write(`${ctx.err.red(text.trim().replace(/\s*\n\s*/g, ' '))}\n`),
    });

  const tools = program
    .command('tools')
    .description('the unified tool list: native tools and every MCP server');

  tools
    .command('list')
    .description('list every tool with its source and status')
    .action(async (_options: unknown, command: Command) => {
      const { json } = globals(command);
      const { config } = loadFor(ctx, command);
      await withRegistry(ctx, config, async (registry) => {
        if (json) writeLine(ctx.stdout, formatJson(toolListDocument(registry)));
        else printToolList(ctx, registry);
      });
    });

  tools
    .command('call')
    .description('call one tool by its exposed name and print the result')
    .argument('<name>', 'the exposed tool name (see `toolwire tools list`)')
    .option('--args <json>', 'the arguments as a JSON object', '{}')
    .action(async (name: string, options: { args?: string }, command: Command) => {
      const { json } = globals(command);
      const args = parseArgsFlag(options.args);
      const { config } = loadFor(ctx, command);
      await withRegistry(ctx, config, (registry) =>
        callToolCommand(ctx, registry, name, args, json === true),
      );
    });

  return program;
}

/** Runs the CLI and returns the exit code; errors become one line on stderr, never a stack. */
export async function runCli(ctx: CliContext, argv: string[]): Promise<number> {
  const program = createProgram(ctx);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.exitCode === 0
      ) {
        return EXIT_OK;
      }
      // Commander has printed its own one-line message already.
      return EXIT_USAGE;
    }
    ctx.stderr.write(`${ctx.err.red('error:')} ${describeError(error)}\n`);
    return exitCodeFor(error);
  }
}
