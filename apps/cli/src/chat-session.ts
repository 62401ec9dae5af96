// The interactive chat: a prompt, commands (`/help`, `/tools`, `/model`, `/clear`, `/exit`) and
// streamed turns; Ctrl-C cancels the turn being written, twice at the prompt quits.
import { isCancel, outro, text } from '@clack/prompts';
import type { Agent, AgentMode } from '@toolwire/agent';
import type { Registry } from '@toolwire/mcp';
import { CancelledError, type Message } from '@toolwire/schema';
import { chatHelp, readChatInput, type ChatInput } from './chat-input.js';
import { RunBounds, explain, streamTurn, timedOutError } from './chat-turn.js';
import { writeLine, type CliContext } from './context.js';
import { describeError } from './errors.js';
import { oneLine } from './output.js';
import type { ResolvedProvider } from './provider.js';

interface InteractiveSession {
  registry: Registry;
  mode: AgentMode;
  /** The longest wait for one answer (0: none). */
  timeoutMs: number;
  provider(): ResolvedProvider;
  agent: Agent;
  /** `/model <id>`: the same provider with another model; resolves with its agent. */
  switchModel(model: string): Promise<Agent>;
}

export async function chatInteractive(ctx: CliContext, session: InteractiveSession): Promise<void> {
  const out = ctx.out;
  const { registry, mode } = session;
  let agent = session.agent;
  const { provider: name, model } = session.provider();
  writeLine(
    ctx.stdout,
    `${out.bold('toolwire chat')} ${out.dim('·')} ${name} ${out.cyan(model)} ${out.dim('·')} ${registry.listTools().length} tools, ${mode} mode`,
  );
  writeLine(
    ctx.stdout,
    out.dim(
      'Ctrl-C cancels the answer being written · /help lists the commands · /exit or Ctrl-C twice at the prompt quits',
    ),
  );

  let history: Message[] = [];
  let current: RunBounds | undefined;
  let interruptedAtPrompt = false;
  // Ctrl-C while a turn runs aborts that turn only; the session goes on.
  const onInterrupt = () => current?.interrupt();
  process.on('SIGINT', onInterrupt);
  try {
    for (;;) {
      const typed = await text({
        message: 'You',
        placeholder: 'ask something, or /exit',
        input: ctx.stdin,
        output: ctx.stdout,
      });
      if (isCancel(typed)) {
        if (interruptedAtPrompt) break;
        interruptedAtPrompt = true;
        writeLine(ctx.stdout, out.dim('(Ctrl-C again or /exit to quit)'));
        continue;
      }
      interruptedAtPrompt = false;
      const input = readChatInput(typed);
      if (input === undefined) continue;
      if (input.kind !== 'message') {
        const next = await runCommand(ctx, session, input, agent);
        if (next === 'exit') break;
        if (next === 'clear') history = [];
        else agent = next;
        continue;
      }

      const bounds = new RunBounds(session.timeoutMs);
      current = bounds;
      const next: Message[] = [...history, { role: 'user', content: input.text }];
      try {
        const result = await streamTurn(ctx, agent, next, bounds.signal);
        history = result.messages;
      } catch (error) {
        if (bounds.timedOut) {
          writeLine(
            ctx.stdout,
            `${out.red('error:')} ${timedOutError(session.provider(), session.timeoutMs).message}`,
          );
        } else if (CancelledError.isInstance(error) || bounds.signal.aborted) {
          writeLine(ctx.stdout, out.yellow('(answer cancelled)'));
        } else {
          writeLine(
            ctx.stdout,
            `${out.red('error:')} ${describeError(explain(error, session.provider()))}`,
          );
        }
      } finally {
        bounds.done();
        current = undefined;
      }
    }
  } finally {
    process.removeListener('SIGINT', onInterrupt);
  }
  outro('Bye.', { output: ctx.stdout });
}

/** Runs a command typed at the prompt; says whether to quit, forget the conversation, or which agent to go on with. */
async function runCommand(
  ctx: CliContext,
  session: InteractiveSession,
  input: Exclude<ChatInput, { kind: 'message' }>,
  agent: Agent,
): Promise<Agent | 'exit' | 'clear'> {
  const out = ctx.out;
  if (input.kind === 'unknown') {
    writeLine(
      ctx.stdout,
      `${out.yellow(`unknown command ${input.name}`)} ${out.dim('(/help lists the commands; //text sends a message that starts with /)')}`,
    );
    return agent;
  }
  switch (input.name) {
    case 'exit':
      return 'exit';
    case 'help':
      for (const line of chatHelp()) writeLine(ctx.stdout, `  ${line}`);
      return agent;
    case 'tools':
      printTools(ctx, session.registry, session.mode);
      return agent;
    case 'clear':
      writeLine(ctx.stdout, out.dim('(conversation cleared: the next message starts a new one)'));
      return 'clear';
    case 'model': {
      const wanted = input.argument.trim();
      let next = agent;
      if (wanted !== '') {
        try {
          next = await session.switchModel(wanted);
        } catch (error) {
          writeLine(ctx.stdout, `${out.red('error:')} ${describeError(error)}`);
          return agent;
        }
      }
      const current = session.provider();
      writeLine(
        ctx.stdout,
        `model: ${current.provider} ${out.cyan(current.model)}${wanted === '' ? out.dim(' (/model <id> switches; the conversation is kept)') : ''}`,
      );
      return next;
    }
  }
}

/** `/tools`: one line per tool, its name and the start of its description. */
function printTools(ctx: CliContext, registry: Registry, mode: AgentMode): void {
  const tools = registry.listTools();
  const out = ctx.out;
  const width = Math.min(40, Math.max(...tools.map((tool) => tool.name.length), 4));
  const room = Math.max(20, (ctx.stdout.columns ?? 100) - width - 6);
  writeLine(
    ctx.stdout,
    `${tools.length} tool${tools.length === 1 ? '' : 's'}${mode === 'code' ? ' (the model reaches them through execute_code)' : ''}:`,
  );
  for (const tool of tools) {
    writeLine(
      ctx.stdout,
      `  ${out.cyan(tool.name.padEnd(width))}  ${out.dim(oneLine(tool.description, room))}`,
    );
  }
}
