import {
  emptyUsage,
  repairTranscript,
  type AnyTool,
  type Message,
  type ToolSpec,
} from '@toolwire/schema';
import type { AgentEvent } from './agent-event.js';
import type { AgentMode, AgentTranscript } from './agent-transcript.js';
import { InvalidAgentOptionsError, runCancelled } from './agent-errors.js';
import type {
  AgentOptions,
  ResolvedAgentOptions,
  ToolCallingMode,
  ToolListMode,
  ToolProvider,
} from './agent-options.js';
import type { AgentResult } from './agent-result.js';
import { EventChannel } from './event-channel.js';
import { raceAbort, roundMs, UNCANCELLABLE, type RunContext } from './run-context.js';
import { runStagedPipeline } from './staged-pipeline.js';
import { runToolLoop } from './tool-loop.js';

const TOOL_CALLING_MODES: readonly ToolCallingMode[] = ['native', 'prompt', 'auto'];

export interface RunOptions {
  signal?: AbortSignal;
}

/** A user prompt, or a whole conversation to continue (e.g. `[...previous.messages, next]`). */
export type AgentInput = string | readonly Message[];

export interface Agent {
  readonly mode: AgentMode;
  /**
   * Runs to the end and returns the answer and the transcript. Nothing is streamed to the
   * caller, so model calls are sent non-streaming (`generate`); `stream()` streams them.
   */
  run(input: AgentInput, options?: RunOptions): Promise<AgentResult>;
  /** The same run as events; the last one is `finish`. Breaking out of the loop aborts the run. */
  stream(input: AgentInput, options?: RunOptions): AsyncIterable<AgentEvent>;
}

const MODES: readonly AgentMode[] = ['direct', 'code', 'gateway', 'staged'];

/**
 * Creates the chat loop over any `ChatModel` and any tools.
 *
 * ```ts
 * const agent = createAgent({ model, tools, maxSteps: 8 });
 * const { text, transcript } = await agent.run('What is 2+2?');
 * ```
 */
export function createAgent(options: AgentOptions): Agent {
  const resolved = resolveOptions(options);
  const { model } = options;
  const tools = options.tools ?? [];

  async function execute(
    input: AgentInput,
    signal: AbortSignal,
    emit: ((event: AgentEvent) => void) | undefined,
  ): Promise<AgentResult> {
    // A conversation handed back after a cancelled turn can hold calls without results or
    // results without calls, which providers reject (pain point 2): fix it before the first call.
    const { messages, fixes: inputRepairs } = repairTranscript(normaliseInput(input));
    const startedAt = new Date().toISOString();
    const started = performance.now();
    if (signal.aborted) throw runCancelled(signal);
    let toolList: AnyTool[];
    let discoveryError: unknown;
    try {
      toolList = await loadTools(tools, resolved.mode, signal);
    } catch (error) {
      // The staged pipeline's discovery degrades to no tools when the provider fails (seed 000);
      // a bad tool list (a caller's bug) and cancellation still end the run.
      if (resolved.mode !== 'staged' || signal.aborted || error instanceof InvalidAgentOptionsError)
        throw signal.aborted ? runCancelled(signal) : error;
      toolList = [];
      discoveryError = error;
    }
    const context: RunContext = {
      model,
      options: resolved,
      tools: toolList,
      toolsByName: new Map(toolList.map((tool) => [tool.name, tool])),
      specs: toolList.map(specOf),
      input: messages,
      signal,
      emit: emit ?? (() => undefined),
      // Nobody reads deltas from run(), so its model calls are not streamed.
      streaming: emit !== undefined,
      steps: [],
      usage: emptyUsage(),
      ...(discoveryError !== undefined ? { discoveryError } : {}),
      promptToolCalling:
        resolved.toolCalling === 'prompt' ||
        (resolved.toolCalling === 'auto' && !model.capabilities.toolCalling),
    };
    const outcome =
      resolved.mode === 'staged' ? await runStagedPipeline(context) : await runToolLoop(context);
    const transcript: AgentTranscript = {
      version: 1,
      mode: resolved.mode,
      provider: model.provider,
      modelId: model.modelId,
      startedAt,
      durationMs: roundMs(performance.now() - started),
      system: resolved.system ?? null,
      input: [...messages],
      inputRepairs,
      steps: context.steps,
      text: outcome.text,
      finishReason: outcome.finishReason,
      usage: context.usage,
    };
    const result: AgentResult = {
      text: outcome.text,
      finishReason: outcome.finishReason,
      steps: context.steps,
      usage: context.usage,
      messages: outcome.messages,
      transcript,
    };
    context.emit({ type: 'finish', result });
    return result;
  }

  return {
    mode: resolved.mode,
    async run(input, runOptions = {}) {
      return execute(input, runOptions.signal ?? UNCANCELLABLE, undefined);
    },
    stream(input, runOptions = {}) {
      const stopped = new AbortController();
      const signal = runOptions.signal
        ? AbortSignal.any([runOptions.signal, stopped.signal])
        : stopped.signal;
      const channel = new EventChannel<AgentEvent>(() =>
        stopped.abort(new Error('the consumer stopped reading the agent stream')),
      );
      // Started on first pull, so an unread stream costs nothing.
      let started = false;
      return {
        [Symbol.asyncIterator]() {
          if (!started) {
            started = true;
            execute(input, signal, (event) => channel.push(event)).then(
              () => channel.end(),
              (error: unknown) => channel.fail(error),
            );
          }
          return channel[Symbol.asyncIterator]();
        },
      };
    },
  };
}

function specOf(tool: AnyTool): ToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
  };
}

async function loadTools(
  source: readonly AnyTool[] | ToolProvider,
  mode: AgentMode,
  signal: AbortSignal,
): Promise<AnyTool[]> {
  const listMode: ToolListMode = mode === 'staged' ? 'direct' : mode;
  const list =
    typeof source === 'function'
      ? await raceAbort(Promise.resolve(source({ mode: listMode, signal })), signal)
      : source;
  if (!Array.isArray(list)) {
    throw new InvalidAgentOptionsError({
      field: 'tools',
      message: `tools must be an array of tools or a function returning one (the provider returned ${typeof list})`,
    });
  }
  const seen = new Set<string>();
  list.forEach((tool: AnyTool, index: number) => {
    if (tool === null || typeof tool !== 'object' || typeof tool.name !== 'string') {
      throw new InvalidAgentOptionsError({
        field: `tools[${index}]`,
        message: `tools[${index}] must be a tool with a name, description and inputSchema`,
      });
    }
    if (seen.has(tool.name)) {
      throw new InvalidAgentOptionsError({
        field: `tools[${index}].name`,
        message: `tools[${index}].name: two tools are named "${tool.name}"; tool names must be unique`,
      });
    }
    seen.add(tool.name);
  });
  if (mode === 'code' && !seen.has('execute_code')) {
    throw new InvalidAgentOptionsError({
      field: 'tools',
      message:
        'mode "code" needs a tool named "execute_code" in tools (createCodeModeTools from @toolwire/codemode makes it)',
    });
  }
  return [...list];
}

function resolveOptions(options: AgentOptions): ResolvedAgentOptions {
  if (options === null || typeof options !== 'object') {
    throw new InvalidAgentOptionsError({
      field: 'options',
      message: 'createAgent needs an options object',
    });
  }
  const { model } = options;
  if (
    model === null ||
    typeof model !== 'object' ||
    typeof model.generate !== 'function' ||
    typeof model.stream !== 'function'
  ) {
    throw new InvalidAgentOptionsError({
      field: 'model',
      message: 'model must be a ChatModel (an object with generate() and stream())',
    });
  }
  const mode = options.mode ?? 'direct';
  if (!MODES.includes(mode)) {
    throw new InvalidAgentOptionsError({
      field: 'mode',
      message: `mode must be one of ${MODES.map((m) => `"${m}"`).join(', ')} (got ${JSON.stringify(mode)})`,
    });
  }
  if (
    options.tools !== undefined &&
    typeof options.tools !== 'function' &&
    !Array.isArray(options.tools)
  ) {
    throw new InvalidAgentOptionsError({
      field: 'tools',
      message: 'tools must be an array of tools or a function returning one',
    });
  }
  const toolCalling = options.toolCalling ?? 'native';
  if (!TOOL_CALLING_MODES.includes(toolCalling)) {
    throw new InvalidAgentOptionsError({
      field: 'toolCalling',
      message: `toolCalling must be one of ${TOOL_CALLING_MODES.map((m) => `"${m}"`).join(', ')} (got ${JSON.stringify(toolCalling)})`,
    });
  }
  const maxSteps = options.maxSteps ?? 10;
  checkInteger('maxSteps', maxSteps, 1);
  const concurrency = options.concurrency ?? 8;
  checkInteger('concurrency', concurrency, 1);
  const maxRetries = options.maxRetries ?? 2;
  checkInteger('maxRetries', maxRetries, 0);
  const retryDelayMs = options.retryDelayMs ?? 500;
  if (typeof retryDelayMs !== 'number' || !(retryDelayMs >= 0)) {
    throw new InvalidAgentOptionsError({
      field: 'retryDelayMs',
      message: `retryDelayMs must be a number >= 0 (got ${JSON.stringify(retryDelayMs)})`,
    });
  }
  if (
    options.toolTimeoutMs !== undefined &&
    !(typeof options.toolTimeoutMs === 'number' && options.toolTimeoutMs > 0)
  ) {
    throw new InvalidAgentOptionsError({
      field: 'toolTimeoutMs',
      message: `toolTimeoutMs must be a number > 0 (got ${JSON.stringify(options.toolTimeoutMs)})`,
    });
  }
  for (const hook of ['approve', 'needsApproval', 'repairToolCall'] as const) {
    if (options[hook] !== undefined && typeof options[hook] !== 'function') {
      throw new InvalidAgentOptionsError({
        field: hook,
        message: `${hook} must be a function (got ${typeof options[hook]})`,
      });
    }
  }
  if (options.system !== undefined && typeof options.system !== 'string') {
    throw new InvalidAgentOptionsError({
      field: 'system',
      message: `system must be a string (got ${typeof options.system})`,
    });
  }
  return {
    mode,
    toolCalling,
    system: options.system,
    maxSteps,
    approve: options.approve,
    needsApproval:
      options.needsApproval ?? ((tool: AnyTool) => tool.annotations?.destructiveHint === true),
    repairToolCall: options.repairToolCall,
    maxRetries,
    retryDelayMs,
    concurrency,
    toolTimeoutMs: options.toolTimeoutMs,
    temperature: options.temperature,
    maxOutputTokens: options.maxOutputTokens,
    providerOptions: options.providerOptions,
  };
}

function checkInteger(field: string, value: unknown, min: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new InvalidAgentOptionsError({
      field,
      message: `${field} must be an integer >= ${min} (got ${JSON.stringify(value)})`,
    });
  }
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

function normaliseInput(input: AgentInput): Message[] {
  if (typeof input === 'string') {
    if (input.trim() === '') {
      throw new InvalidAgentOptionsError({
        field: 'input',
        message: 'input must be a non-empty prompt or a non-empty array of messages',
      });
    }
    return [{ role: 'user', content: input }];
  }
  if (!Array.isArray(input) || input.length === 0) {
    throw new InvalidAgentOptionsError({
      field: 'input',
      message: 'input must be a non-empty prompt or a non-empty array of messages',
    });
  }
  input.forEach((message: Message, index: number) => {
    if (message === null || typeof message !== 'object' || !ROLES.has(message.role)) {
      throw new InvalidAgentOptionsError({
        field: `input[${index}].role`,
        message: `input[${index}].role must be "system", "user", "assistant" or "tool" (got ${JSON.stringify((message as { role?: unknown } | null)?.role)})`,
      });
    }
  });
  return [...input];
}
