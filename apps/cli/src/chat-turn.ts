// One turn of a chat, as `chat --once` and the interactive chat both run it: tool activity lines,
// the bounds of a run (Ctrl-C, --timeout-ms), provider failures said with the address, and the
// streamed turn of the interactive chat.
import type { Agent, AgentEvent, AgentResult } from '@toolwire/agent';
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
import { writeLine, type CliContext } from './context.js';
import { CommandFailedError } from './errors.js';
import { oneLine, type Colors } from './output.js';
import { ProviderUnreachableError, type ResolvedProvider } from './provider.js';
import { createSpinner } from './spinner.js';

/** Provider failures, said with where the CLI was talking to. */
export function explain(error: unknown, provider: ResolvedProvider): unknown {
  if (!ToolwireError.isInstance(error) || error.code === 'cancelled') return error;
  const where = `${provider.provider} at ${provider.baseUrl}`;
  if (error.code === 'connection') {
    return new ProviderUnreachableError(`cannot connect to ${where}: ${error.message}`, {
      cause: error,
    });
  }
  if (ProviderError.isProviderError(error)) {
    return new ToolwireError(error.code, { message: `${where}: ${error.message}`, cause: error });
  }
  return error;
}

/** Tool activity lines: `→ name {args}` when a call starts, `✓ name  12 ms` when it ends. */
export class ToolActivity {
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

/** Why a run was stopped from outside: Ctrl-C, or the `--timeout-ms` bound. */
export class RunBounds {
  readonly controller = new AbortController();
  interrupted = false;
  timedOut = false;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number) {
    if (timeoutMs > 0) {
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.controller.abort(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  interrupt(): void {
    this.interrupted = true;
    this.controller.abort(new Error('cancelled by Ctrl-C'));
  }

  done(): void {
    clearTimeout(this.timer);
  }
}

export function timedOutError(provider: ResolvedProvider, timeoutMs: number): CommandFailedError {
  return new CommandFailedError(
    `no answer from ${provider.provider} at ${provider.baseUrl} within ${timeoutMs} ms (--timeout-ms; 0 waits as long as it takes)`,
  );
}

/**
 * One turn: a spinner while waiting, text streamed as it comes, tool calls as they happen. Once
 * the turn is cancelled nothing more of it is printed, even what was already on its way.
 */
export async function streamTurn(
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
      if (signal.aborted) break;
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
  if (signal.aborted) throw new CancelledError({ message: errorMessage(signal.reason) });
  if (result === undefined)
    throw new Error(`the agent stream ended without a result (${errorMessage(signal.reason)})`);
  return result;
}
