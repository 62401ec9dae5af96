import { createAgent, type Agent, type AgentMode, type AgentResult } from '@toolwire/agent';
import type { CodeMode } from '@toolwire/codemode';
import { resolveCodeModeSettings } from '@toolwire/codemode/settings';
import type { ToolwireConfig } from '@toolwire/mcp';
import { chatInteractive } from '../chat-session.js';
import { RunBounds, ToolActivity, explain, timedOutError } from '../chat-turn.js';
import type { CliContext } from '../context.js';
import { writeLine } from '../context.js';
import { SilentExitError, UsageError } from '../errors.js';
import { formatJson } from '../output.js';
import { checkProvider, PROVIDER_CHECK_MS } from '../provider-check.js';
import { createSpinner } from '../spinner.js';
import { withRegistry } from '../registry.js';
import { resolveProvider, type ProviderFlags, type ResolvedProvider } from '../provider.js';

export interface ChatFlags extends ProviderFlags {
  mode?: AgentMode;
  once?: string;
  /** The longest wait for one answer (default 300 s with `--once`, none interactively; 0: none). */
  timeoutMs?: number;
}

/** `--once` gives up after this long unless `--timeout-ms` says otherwise. */
const ONCE_TIMEOUT_MS = 300_000;
/** Exit code of a command ended by Ctrl-C (128 + SIGINT), as shells report it. */
const EXIT_INTERRUPTED = 130;

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
  let provider = await resolveProvider(flags, config, ctx.env);
  // The interactive chat says before the first prompt when nothing listens at the provider's
  // address, and goes on (saying so) when something does but is slow to answer. `--once` learns
  // it from its one request, with the same message.
  if (flags.once === undefined && (await checkProvider(provider)) === 'slow') {
    ctx.stderr.write(
      `${ctx.err.yellow('warning:')} ${provider.provider} at ${provider.baseUrl} accepted the connection but sent no answer in ${PROVIDER_CHECK_MS / 1000} s; it may be busy (a local server loading its model?). The first answer may take a while.\n`,
    );
  }
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
      const agentFor = (chosen: ResolvedProvider): Agent =>
        createAgent({
          model: chosen.chatModel,
          mode,
          // A local model without tool calling gets the tools in its prompt instead of failing.
          toolCalling: 'auto',
          tools: ({ mode: listMode }) =>
            listMode === 'code' && codeMode
              ? codeMode.tools
              : registry.asTools({ mode: listMode === 'gateway' ? 'gateway' : 'tools' }),
        });
      if (flags.once !== undefined) {
        const timeoutMs = flags.timeoutMs ?? ONCE_TIMEOUT_MS;
        await chatOnce(ctx, agentFor(provider), provider, flags.once, json, timeoutMs);
        return;
      }
      await chatInteractive(ctx, {
        registry,
        mode,
        timeoutMs: flags.timeoutMs ?? 0,
        provider: () => provider,
        agent: agentFor(provider),
        async switchModel(model) {
          provider = await resolveProvider(
            { ...flags, provider: provider.provider, model },
            config,
            ctx.env,
          );
          return agentFor(provider);
        },
      });
    } finally {
      await codeMode?.close();
    }
  });
}

/**
 * `--once`: one prompt, the answer on stdout. While waiting, a spinner on stderr (a terminal only)
 * and the tool calls as they happen; bounded by `--timeout-ms`. Ctrl-C ends it at once with exit
 * 130 and nothing more printed.
 */
async function chatOnce(
  ctx: CliContext,
  agent: Agent,
  provider: ResolvedProvider,
  prompt: string,
  json: boolean,
  timeoutMs: number,
): Promise<void> {
  const bounds = new RunBounds(timeoutMs);
  const onInterrupt = () => bounds.interrupt();
  process.once('SIGINT', onInterrupt);
  const spinning = !json && ctx.stderr.isTTY === true;
  const waiting = spinning
    ? createSpinner(ctx.stderr, ctx.err, { discardStdin: false })
    : undefined;
  const wait = (label: string) => waiting?.start(`${label} (${provider.model})`);
  const activity = new ToolActivity(
    (line) => {
      waiting?.stop();
      ctx.stderr.write(`${line}\n`);
    },
    ctx.err,
    80,
  );
  let result: AgentResult | undefined;
  wait('Waiting for the answer');
  try {
    for await (const event of agent.stream(prompt, { signal: bounds.signal })) {
      if (bounds.signal.aborted) break;
      if (event.type === 'finish') result = event.result;
      else if (!json && event.type === 'tool-call') {
        activity.call(event.toolCall);
        wait(`Running ${event.toolCall.name}`);
      } else if (!json && event.type === 'tool-result') {
        activity.result(event.result);
        wait('Waiting for the answer');
      }
    }
  } catch (error) {
    if (!bounds.interrupted && !bounds.timedOut) throw explain(error, provider);
  } finally {
    waiting?.stop();
    bounds.done();
    process.removeListener('SIGINT', onInterrupt);
  }
  if (bounds.interrupted) throw new SilentExitError(EXIT_INTERRUPTED);
  if (bounds.timedOut) throw timedOutError(provider, timeoutMs);
  if (result === undefined) throw new Error('the agent stream ended without a result');
  if (json) writeLine(ctx.stdout, formatJson(result.transcript));
  else writeLine(ctx.stdout, result.text);
}
