import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { CliContext, GlobalOptions } from './context.js';
import type { ChatFlags } from './commands/chat.js';
import type { CodeRunFlags } from './commands/code.js';
import type { ResolvedConfig } from './config.js';

// Exit codes fixed by SPEC: 0 success, 2 bad usage (1, a failed tool or script, is errors.ts's).
const EXIT_OK = 0;
const EXIT_USAGE = 2;

const VERSION = '0.1.0';

const PROVIDER_NAMES = [
  'openai',
  'openai-responses',
  'anthropic',
  'ollama',
  'xai',
  'google',
] as const;
const CHAT_MODES = ['direct', 'code', 'gateway', 'staged'] as const;

/** Positive integer flag values (`--timeout-ms 500`); anything else is a usage error. */
function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) <= 0) {
    throw new InvalidArgumentError('expected a positive whole number.');
  }
  return Number(value);
}

/** A TCP port, 0 (any free port) to 65535. */
function portNumber(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65_535) {
    throw new InvalidArgumentError('expected a port number from 0 to 65535.');
  }
  return Number(value);
}

/** Whole numbers from 0 (`--max-tool-calls 0` forbids tool calls). */
function nonNegativeInteger(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number (0 or more).');
  return Number(value);
}

/** The "Examples:" block at the end of a help screen. */
function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  ${line}`).join('\n')}\n`;
}

function globals(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

/**
 * The configuration a command runs with. Loaded by the commands that need it, so `--version` and
 * `--help` read no file and load none of the packages a command uses (only commander is loaded).
 */
async function loadFor(ctx: CliContext, command: Command): Promise<ResolvedConfig> {
  const options = globals(command);
  const { resolveConfig } = await import('./config.js');
  return resolveConfig({
    ...(options.config !== undefined ? { configFile: options.config } : {}),
    cwd: ctx.cwd,
    onWarning: (message) => ctx.stderr.write(`${ctx.err.yellow('warning:')} ${message}\n`),
  });
}

/**
 * The command tree. Each action loads its module on demand, so `--help` or `tools list` does not
 * pay for the TypeScript checker or the provider SDKs.
 */
function createProgram(ctx: CliContext): Command {
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
    // Every subcommand's --help lists --config and --json too (they work after the subcommand).
    .configureHelp({ showGlobalOptions: true })
    .addHelpText(
      'after',
      examples([
        'toolwire tools list',
        `toolwire tools call calculate --args '{"expression":"6*7"}'`,
        `echo 'return await calculate({ expression: "6*7" })' | toolwire code run -`,
        'toolwire chat --provider ollama --model llama3.2',
        'toolwire serve --port 9000 --config ./toolwire.config.json',
      ]),
    )
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
    .description('the unified tool list: native tools and every MCP server')
    .addHelpText(
      'after',
      examples([
        'toolwire tools list',
        'toolwire tools list --json',
        `toolwire tools call hash --args '{"data":"hi","algorithm":"sha256"}'`,
      ]),
    );

  tools
    .command('list')
    .description('list every tool with its source and status')
    .addHelpText(
      'after',
      examples(['toolwire tools list', 'toolwire tools list --json --config ./mcp.json']),
    )
    .action(async (_options: unknown, command: Command) => {
      const { json } = globals(command);
      const { config } = await loadFor(ctx, command);
      const { toolsListCommand } = await import('./commands/tools.js');
      await toolsListCommand(ctx, config, json === true);
    });

  tools
    .command('call')
    .description('call one tool by its exposed name and print the result')
    .argument('<name>', 'the exposed tool name (see `toolwire tools list`)')
    .option('--args <json>', 'the arguments as a JSON object', '{}')
    .addHelpText(
      'after',
      examples([
        `toolwire tools call calculate --args '{"expression":"2 * (3 + 4)"}'`,
        `toolwire tools call time --args '{"name":"get_time_utc"}' --json`,
      ]),
    )
    .action(async (name: string, options: { args?: string }, command: Command) => {
      const { json } = globals(command);
      const { parseArgsFlag, toolsCallCommand } = await import('./commands/tools.js');
      const args = parseArgsFlag(options.args);
      const { config } = await loadFor(ctx, command);
      await toolsCallCommand(ctx, config, name, args, json === true);
    });

  tools
    .command('pins')
    .description('pinned tool definitions and changes waiting for approval (policy.pinning)')
    .addHelpText('after', examples(['toolwire tools pins', 'toolwire tools pins --json']))
    .action(async (_options: unknown, command: Command) => {
      const { json } = globals(command);
      const { config, file } = await loadFor(ctx, command);
      const { toolsPinsCommand } = await import('./commands/pins.js');
      await toolsPinsCommand(ctx, config, file, json === true);
    });

  tools
    .command('approve')
    .description('approve changed tool definitions: the gateway serves them again')
    .argument('[names...]', 'namespaced tool names (see `toolwire tools pins`)')
    .option('--all', 'approve every changed definition')
    .addHelpText(
      'after',
      examples(['toolwire tools approve web__lookup', 'toolwire tools approve --all --json']),
    )
    .action(async (names: string[], options: { all?: boolean }, command: Command) => {
      const { json } = globals(command);
      const { config, file } = await loadFor(ctx, command);
      const { toolsApproveCommand } = await import('./commands/pins.js');
      await toolsApproveCommand(ctx, config, file, names, options, json === true);
    });

  const code = program
    .command('code')
    .description('code mode: the TypeScript API the model sees, and running scripts against it')
    .addHelpText('after', examples(['toolwire code types', 'toolwire code run script.ts']));

  code
    .command('types')
    .description('print the TypeScript declarations code mode gives the model')
    .addHelpText('after', examples(['toolwire code types', 'toolwire code types --json']))
    .action(async (_options: unknown, command: Command) => {
      const { json } = globals(command);
      const { config } = await loadFor(ctx, command);
      const { codeTypesCommand } = await import('./commands/code.js');
      await codeTypesCommand(ctx, config, json === true);
    });

  code
    .command('prompt')
    .description('print the execute_code tool exactly as the model receives it')
    .option(
      '--model <id>',
      "the model whose codeMode settings apply (default: the config's chat.model)",
    )
    .action(async (options: { model?: string }, command: Command) => {
      const { json } = globals(command);
      const { config } = await loadFor(ctx, command);
      const { codePromptCommand } = await import('./commands/code.js');
      await codePromptCommand(ctx, config, options, json === true);
    });

  code
    .command('run')
    .description('run a TypeScript function body in the sandbox against the configured tools')
    .argument('<file>', 'the script (a .ts file), or - for standard input')
    .option('--timeout-ms <ms>', 'wall-time limit of the run', positiveInteger)
    .option('--memory-mb <mb>', 'heap limit of the sandbox', positiveInteger)
    .option('--max-output-kb <kb>', 'console output and returned value kept', positiveInteger)
    .option('--max-tool-calls <n>', 'tool calls the script may make', nonNegativeInteger)
    .addOption(
      new Option('--typecheck <mode>', 'type-check before running')
        .choices(['off', 'warn', 'error'])
        .default('error'),
    )
    .addHelpText(
      'after',
      examples([
        'toolwire code run script.ts --timeout-ms 5000 --max-tool-calls 10',
        `echo 'return await calculate({ expression: "6*7" })' | toolwire code run -`,
        'toolwire code run script.ts --typecheck warn --json',
      ]),
    )
    .action(async (file: string, options: CodeRunFlags, command: Command) => {
      const { json } = globals(command);
      // The sandbox's engine and the type checker's worker (TypeScript, its lib files) start
      // first: they then load while the script, the config and the tools are read.
      (await import('@toolwire/codemode')).warmUpSharedSandbox({
        typecheck: options.typecheck !== 'off',
      });
      const { readScript, codeRunCommand } = await import('./commands/code.js');
      const script = await readScript(ctx, file);
      const { config } = await loadFor(ctx, command);
      await codeRunCommand(ctx, config, script, options, json === true);
    });

  program
    .command('chat')
    .description('chat with a model that can use the configured tools')
    .addOption(new Option('--provider <name>', 'the model provider').choices(PROVIDER_NAMES))
    .option('--model <id>', "the model (default: the config's chat.model, else per provider)")
    .option(
      '--base-url <url>',
      "the provider's API address (OpenAI-compatible: its /v1 URL; google: the API root)",
    )
    .option('--api-key <key>', "the API key (default: the provider's usual environment variable)")
    .addOption(new Option('--mode <mode>', 'how the model gets the tools').choices(CHAT_MODES))
    .option('--once <prompt>', 'answer one prompt, print the answer and exit')
    .option(
      '--timeout-ms <ms>',
      'the longest wait for an answer (default 300000 with --once, none interactively; 0: none)',
      nonNegativeInteger,
    )
    .addHelpText(
      'after',
      examples([
        'toolwire chat',
        'toolwire chat --provider ollama --model llama3.2',
        'toolwire chat --provider openai --model gpt-5-mini --once "What is 6*7?"',
        'toolwire chat --once "hash hello with sha256" --json --timeout-ms 60000',
        'toolwire chat --provider openai --base-url http://127.0.0.1:1234/v1 --mode code',
      ]),
    )
    .action(async (options: ChatFlags, command: Command) => {
      const { json } = globals(command);
      const { config } = await loadFor(ctx, command);
      const { chatCommand } = await import('./commands/chat.js');
      await chatCommand(ctx, config, options, json === true);
    });

  program
    .command('serve')
    .description('run the gateway server (same as toolwire-server)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', portNumber, 8787)
    .option('--allowed-hosts <list>', 'Host/Origin names accepted besides loopback, or *')
    .addHelpText(
      'after',
      examples([
        'toolwire serve',
        'toolwire serve --port 9000 --config ./toolwire.config.json',
        'toolwire serve --host 0.0.0.0 --allowed-hosts gateway.example.com',
      ]),
    )
    .action(
      async (options: { host: string; port: number; allowedHosts?: string }, command: Command) => {
        const { config } = globals(command);
        // The gateway's own command line, so `toolwire serve` behaves exactly like it.
        const { runServerCli } = await import('@toolwire/server');
        const code = await runServerCli([
          ...(config !== undefined ? ['--config', config] : []),
          '--host',
          options.host,
          '--port',
          String(options.port),
          ...(options.allowedHosts !== undefined ? ['--allowed-hosts', options.allowedHosts] : []),
        ]);
        if (code !== 0) {
          const { SilentExitError } = await import('./errors.js');
          throw new SilentExitError(code);
        }
      },
    );

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
    const { describeError, exitCodeFor, SilentExitError } = await import('./errors.js');
    if (error instanceof SilentExitError) return error.exitCode;
    ctx.stderr.write(`${ctx.err.red('error:')} ${describeError(error)}\n`);
    return exitCodeFor(error);
  }
}
