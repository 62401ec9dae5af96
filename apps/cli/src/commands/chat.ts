import { isCancel, outro, text } from '@clack/prompts';
import {
  createAgent,
  type Agent,
  type AgentEvent,
  type AgentMode,
  type AgentResult,
} from '@toolwire/agent';
import type { CodeMode } from '@toolwire/codemode';
import { resolveCodeModeSettings } from '@toolwire/codemode/settings';
import type { Registry, ToolwireConfig } from '@toolwire/mcp';
import {
  CancelledError,
  ProviderError,
  ToolwireError,
  errorMessage,
  toolResultText,
  type Message,
  type ToolCall,
  type ToolResult,
} from '@toolwire/schema';
import type { CliContext } from '../context.js';
import { writeLine } from '../context.js';
import { UsageError, describeError } from '../errors.js';
import { formatJson, oneLine, type Colors } from '../output.js';
import { createSpinner } from '../spinner.js';
import { withRegistry } from '../registry.js';
import {
  resolveProvider,
  ProviderUnreachableError,
  type ProviderFlags,
  type ResolvedProvider,
} from '../provider.js';

export interface ChatFlags extends ProviderFlags {
  mode?: AgentMode;
  once?: string;
}

/**
 * `chat --mode` default: code mode when the config enables it for this model (`codeMode.defaults`,
 * `codeMode.models[].match`), else the gateway mode's choice.
 */
function defaultChatMode(config: ToolwireConfig, model?: string): AgentMode {
  if (resolveCodeModeSettings(config.codeMode, model).enabled) return 'code';
  return config.gateway?.mode === 'gateway' ? 'gateway' : 'direct';
}

export async function chatCommand(
  ctx: CliContext,
  config: ToolwireConfig,
  flags: ChatFlags,
  json: boolean,
): Promise<void> {
  if (flags.once !== undefined && flags.once.trim() === '') {
    throw new UsageError({
      message: '--once needs a prompt, e.g. --once "What time is it in UTC?"',
    });
  }
  if (flags.once === undefined && json) {
    throw new UsageError({
      message: '--json needs --once "PROMPT" (the interactive chat has no machine-readable form)',
    });
  }
  if (flags.once === undefined && ctx.stdin.isTTY !== true) {
    throw new UsageError({
      message: 'the interactive chat needs a terminal; in scripts use --once "PROMPT"',
    });
  }
  // Before any server starts: a missing provider is reported at once.
  const provider = await resolveProvider(flags, config, ctx.env);
  // The interactive chat says before the first prompt when nothing answers at the provider's
  // address (`--once` learns it from its one request, with the same message).
  if (flags.once === undefined) await checkReachable(provider);
  const mode = flags.mode ?? defaultChatMode(config, provider.model);
  const codeSettings = resolveCodeModeSettings(config.codeMode, provider.model);
  await withRegistry(ctx, config, async (registry) => {
    let codeMode: CodeMode | undefined;
    try {
      if (mode === 'code') {
        // Loaded only for code mode: it brings the TypeScript checker.
        const { createCodeMode } = await import('@toolwire/codemode');
        codeMode = createCodeMode({
          source: registry,
          excludedTools: codeSettings.excludedTools,
          pinnedTools: codeSettings.pinnedTools,
        });
      }
      const agent = createAgent({
        model: provider.chatModel,
        mode,
        // A local model without tool calling gets the tools in its prompt instead of failing.
        toolCalling: 'auto',
        tools: ({ mode: listMode }) =>
          listMode === 'code' && codeMode
            ? codeMode.tools
            : registry.asTools({ mode: listMode === 'gateway' ? 'gateway' : 'tools' }),
      });
      if (flags.once !== undefined) await chatOnce(ctx, agent, provider, flags.once, json);
      else await chatInteractive(ctx, agent, provider, registry, mode);
    } finally {
      await codeMode?.close();
    }
  });
}

/** Provider failures, said with where the CLI was talking to. */
function explain(error: unknown, provider: ResolvedProvider): unknown {
  if (!ToolwireError.isInstance(error) || error.code === 'cancelled') return error;
  const where = `${provider.provider} at ${provider.baseUrl}`;
  if (error.code === 'connection') {
    return new ProviderUnreachableError(`cannot reach ${where}: ${error.message}`, {
      cause: error,
    });
  }
  if (ProviderError.isProviderError(error)) {
    return new ToolwireError(error.code, { message: `${where}: ${error.message}`, cause: error });
  }
  return error;
}

/** Any HTTP answer (even 401 or 404) means the address is right; no answer is an error. */
async function checkReachable(provider: ResolvedProvider): Promise<void> {
  try {
    const response = await fetch(provider.baseUrl, {
      method: 'HEAD',
      signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel();
  } catch (error) {
    const reason = errorMessage((error as { cause?: unknown }).cause ?? error);
    throw new ProviderUnreachableError(
      `cannot reach ${provider.provider} at ${provider.baseUrl}: ${reason}`,
      { cause: error },
    );
  }
}

/** Tool activity lines: `→ name {args}` when a call starts, `✓ name  12 ms` when it ends. */
class ToolActivity {
  private readonly started = new Map<string, number>();
  constructor(
    private readonly write: (line: string) => void,
    private readonly colors: Colors,
    private readonly width: number,
  ) {}

  call(toolCall: ToolCall): void {
    this.started.set(toolCall.id, performance.now());
    const args =
      typeof toolCall.arguments === 'string'
        ? toolCall.arguments
        : JSON.stringify(toolCall.arguments);
    this.write(
      `${this.colors.dim('→')} ${this.colors.cyan(toolCall.name)} ${this.colors.dim(oneLine(args, this.width))}`,
    );
  }

  result(result: ToolResult): void {
    const began = this.started.get(result.toolCallId);
    const ms = result.durationMs ?? (began === undefined ? undefined : performance.now() - began);
    const duration = ms === undefined ? '' : this.colors.dim(`  ${formatDuration(ms)}`);
    if (result.isError) {
      const reason = result.error?.message ?? toolResultText(result);
      this.write(
        `${this.colors.red('✗')} ${this.colors.cyan(result.toolName)}${duration}  ${this.colors.red(oneLine(reason, this.width))}`,
      );
    } else {
      this.write(`${this.colors.green('✓')} ${this.colors.cyan(result.toolName)}${duration}`);
    }
  }
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

async function chatOnce(
  ctx: CliContext,
  agent: Agent,
  provider: ResolvedProvider,
  prompt: string,
  json: boolean,
): Promise<void> {
  const controller = new AbortController();
  const onInterrupt = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onInterrupt);
  const activity = new ToolActivity((line) => ctx.stderr.write(`${line}\n`), ctx.err, 80);
  let result: AgentResult | undefined;
  try {
    for await (const event of agent.stream(prompt, { signal: controller.signal })) {
      if (event.type === 'finish') result = event.result;
      else if (!json && event.type === 'tool-call') activity.call(event.toolCall);
      else if (!json && event.type === 'tool-result') activity.result(event.result);
    }
  } catch (error) {
    throw explain(error, provider);
  } finally {
    process.removeListener('SIGINT', onInterrupt);
  }
  if (result === undefined) throw new Error('the agent stream ended without a result');
  if (json) writeLine(ctx.stdout, formatJson(result.transcript));
  else writeLine(ctx.stdout, result.text);
}

async function chatInteractive(
  ctx: CliContext,
  agent: Agent,
  provider: ResolvedProvider,
  registry: Registry,
  mode: AgentMode,
): Promise<void> {
  const out = ctx.out;
  const toolCount = registry.listTools().length;
  writeLine(
    ctx.stdout,
    `${out.bold('toolwire chat')} ${out.dim('·')} ${provider.provider} ${out.cyan(provider.model)} ${out.dim('·')} ${toolCount} tools, ${mode} mode`,
  );
  writeLine(
    ctx.stdout,
    out.dim('Ctrl-C cancels the answer being written · /exit or Ctrl-C twice at the prompt quits'),
  );

  let history: Message[] = [];
  let current: AbortController | undefined;
  let interruptedAtPrompt = false;
  // Ctrl-C while a turn runs aborts that turn only; the session goes on.
  const onInterrupt = () => current?.abort(new Error('cancelled by Ctrl-C'));
  process.on('SIGINT', onInterrupt);
  try {
    for (;;) {
      const input = await text({
        message: 'You',
        placeholder: 'ask something, or /exit',
        input: ctx.stdin,
        output: ctx.stdout,
      });
      if (isCancel(input)) {
        if (interruptedAtPrompt) break;
        interruptedAtPrompt = true;
        writeLine(ctx.stdout, out.dim('(Ctrl-C again or /exit to quit)'));
        continue;
      }
      interruptedAtPrompt = false;
      const prompt = input.trim();
      if (prompt === '') continue;
      if (prompt === '/exit' || prompt === '/quit') break;

      current = new AbortController();
      const next: Message[] = [...history, { role: 'user', content: prompt }];
      try {
        const result = await streamTurn(ctx, agent, next, current.signal);
        history = result.messages;
      } catch (error) {
        if (CancelledError.isInstance(error) || current.signal.aborted) {
          writeLine(ctx.stdout, out.yellow('(answer cancelled)'));
        } else {
          writeLine(ctx.stdout, `${out.red('error:')} ${describeError(explain(error, provider))}`);
        }
      } finally {
        current = undefined;
      }
    }
  } finally {
    process.removeListener('SIGINT', onInterrupt);
  }
  outro('Bye.', { output: ctx.stdout });
}

/** One turn: a spinner while waiting, text streamed as it comes, tool calls as they happen. */
async function streamTurn(
  ctx: CliContext,
  agent: Agent,
  messages: Message[],
  signal: AbortSignal,
): Promise<AgentResult> {
  const out = ctx.out;
  const waiting = createSpinner(ctx.stdout, out);
  let spinning = false;
  let midLine = false;
  const startSpinner = (label: string) => {
    if (midLine) {
      ctx.stdout.write('\n');
      midLine = false;
    }
    if (!spinning) waiting.start(label);
    else waiting.text = label;
    spinning = true;
  };
  const stopSpinner = () => {
    if (spinning) waiting.stop();
    spinning = false;
  };
  const activity = new ToolActivity(
    (line) => {
      stopSpinner();
      if (midLine) ctx.stdout.write('\n');
      midLine = false;
      writeLine(ctx.stdout, `  ${line}`);
    },
    out,
    Math.max(20, (ctx.stdout.columns ?? 100) - 30),
  );
  let result: AgentResult | undefined;
  startSpinner('Thinking');
  try {
    for await (const event of agent.stream(messages, { signal }) as AsyncIterable<AgentEvent>) {
      switch (event.type) {
        case 'text-delta':
          stopSpinner();
          ctx.stdout.write(event.delta);
          midLine = !event.delta.endsWith('\n');
          break;
        case 'tool-call':
          activity.call(event.toolCall);
          startSpinner(`Running ${event.toolCall.name}`);
          break;
        case 'tool-result':
          activity.result(event.result);
          startSpinner('Thinking');
          break;
        case 'finish':
          result = event.result;
          break;
        default:
          break;
      }
    }
  } finally {
    stopSpinner();
    if (midLine) ctx.stdout.write('\n');
  }
  if (result === undefined)
    throw new Error(`the agent stream ended without a result (${errorMessage(signal.reason)})`);
  return result;
}
