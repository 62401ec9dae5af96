import {
  emptyUsage,
  repairTranscript,
  toToolSpec,
  type AnyTool,
  type Message,
} from '@toolwire/schema';
import type { ApprovalDecision } from './agent-options.js';
import { readRunState, type AgentRunState } from './agent-state.js';
import { callerContext, defaultTracer, failSpan, startAgentSpan } from './agent-telemetry.js';
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
  /**
   * The caller's W3C `traceparent` (e.g. the header of the request that started this run): the
   * run's spans join that trace. Without it, the active OpenTelemetry context is the parent.
   */
  traceparent?: string;
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
  /**
   * Continues a run that paused for approvals (`finishReason: 'needs-approval'`) from its
   * `state`, with a decision for each pending approval (keyed by its `id`): the paused step's
   * calls run (the refused ones are answered with a refusal), then the loop goes on. Works in
   * another process, with an agent created with the same options: the result holds the whole
   * run, the steps before the pause included.
   */
  resume(
    state: AgentRunState,
    decisions: Readonly<Record<string, ApprovalDecision>>,
    options?: RunOptions,
  ): Promise<AgentResult>;
  /** `resume` as events, like `stream`. */
  resumeStream(
    state: AgentRunState,
    decisions: Readonly<Record<string, ApprovalDecision>>,
    options?: RunOptions,
  ): AsyncIterable<AgentEvent>;
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
    input: AgentInput | ResumeInput,
    signal: AbortSignal,
    emit: ((event: AgentEvent) => void) | undefined,
    traceparent: string | undefined,
  ): Promise<AgentResult> {
    const resume =
      typeof input === 'object' && !Array.isArray(input) ? (input as ResumeInput) : undefined;
    const state = resume ? readRunState(resume.state) : undefined;
    if (state && state.mode !== resolved.mode)
      throw new InvalidAgentOptionsError({
        field: 'state.mode',
        message: `the state is of a "${state.mode}" run, this agent's mode is "${resolved.mode}"`,
      });
    // A conversation handed back after a cancelled turn can hold calls without results or
    // results without calls, which providers reject (pain point 2): fix it before the first call.
    const { messages, fixes: inputRepairs } = state
      ? { messages: state.input, fixes: state.inputRepairs }
      : repairTranscript(normaliseInput(input as AgentInput));
    const startedAt = state?.startedAt ?? new Date().toISOString();
    const started = performance.now() - (state?.durationMs ?? 0);
    if (signal.aborted) throw runCancelled(signal);
    const run = startAgentSpan(
      resolved.tracer,
      callerContext(traceparent),
      resolved.agentName,
      model,
    );
    try {
      let toolList: AnyTool[];
      let discoveryError: unknown;
      try {
        toolList = await loadTools(tools, resolved.mode, signal);
      } catch (error) {
        // The staged pipeline's discovery degrades to no tools when the provider fails (seed 000);
        // a bad tool list (a caller's bug) and cancellation still end the run.
        if (
          resolved.mode !== 'staged' ||
          signal.aborted ||
          error instanceof InvalidAgentOptionsError
        )
          throw signal.aborted ? runCancelled(signal) : error;
        toolList = [];
        discoveryError = error;
      }
      const context: RunContext = {
        model,
        options: resolved,
        tools: toolList,
        toolsByName: new Map(toolList.map((tool) => [tool.name, tool])),
        specs: toolList.map(toToolSpec),
        input: messages,
        signal,
        emit: emit ?? (() => undefined),
        // Nobody reads deltas from run(), so its model calls are not streamed.
        streaming: emit !== undefined,
        steps: state ? [...state.steps] : [],
        usage: state ? state.usage : emptyUsage(),
        ...(discoveryError !== undefined ? { discoveryError } : {}),
        promptToolCalling:
          resolved.toolCalling === 'prompt' ||
          (resolved.toolCalling === 'auto' && !model.capabilities.toolCalling),
        tracer: resolved.tracer,
        traceContext: run.context,
      };
      const outcome =
        resolved.mode === 'staged'
          ? await runStagedPipeline(context)
          : await runToolLoop(context, state ? { state, decisions: resume!.decisions } : undefined);
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
      if (outcome.paused) {
        result.pendingApprovals = outcome.paused.approvals;
        // A deep copy: the state must not change when the caller uses the result.
        result.state = JSON.parse(
          JSON.stringify({
            type: 'toolwire-agent-run',
            version: 1,
            mode: resolved.mode,
            provider: model.provider,
            modelId: model.modelId,
            startedAt,
            durationMs: transcript.durationMs,
            system: transcript.system,
            input: transcript.input,
            inputRepairs,
            steps: context.steps,
            usage: context.usage,
            messages: outcome.messages,
            modelCalls: outcome.modelCalls ?? 0,
            pending: outcome.paused.calls,
          } satisfies AgentRunState),
        ) as AgentRunState;
      }
      if (run.span.isRecording()) {
        run.span.setAttributes({
          'gen_ai.usage.input_tokens': context.usage.inputTokens,
          'gen_ai.usage.output_tokens': context.usage.outputTokens,
          'toolwire.agent.finish_reason': outcome.finishReason,
        });
      }
      run.span.end();
      context.emit({ type: 'finish', result });
      return result;
    } catch (error) {
      failSpan(run.span, error);
      throw error;
    }
  }

  function streamOf(
    input: AgentInput | ResumeInput,
    runOptions: RunOptions,
  ): AsyncIterable<AgentEvent> {
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
          execute(input, signal, (event) => channel.push(event), runOptions.traceparent).then(
            () => channel.end(),
            (error: unknown) => channel.fail(error),
          );
        }
        return channel[Symbol.asyncIterator]();
      },
    };
  }

  return {
    mode: resolved.mode,
    async run(input, runOptions = {}) {
      return execute(input, runOptions.signal ?? UNCANCELLABLE, undefined, runOptions.traceparent);
    },
    stream(input, runOptions = {}) {
      return streamOf(input, runOptions);
    },
    async resume(state, decisions, runOptions = {}) {
      return execute(
        { state, decisions: checkDecisions(decisions) },
        runOptions.signal ?? UNCANCELLABLE,
        undefined,
        runOptions.traceparent,
      );
    },
    resumeStream(state, decisions, runOptions = {}) {
      return streamOf({ state, decisions: checkDecisions(decisions) }, runOptions);
    },
  };
}

/** What `resume` continues from. */
interface ResumeInput {
  state: AgentRunState;
  decisions: Readonly<Record<string, ApprovalDecision>>;
}

function checkDecisions(
  decisions: Readonly<Record<string, ApprovalDecision>>,
): Readonly<Record<string, ApprovalDecision>> {
  if (decisions === null || typeof decisions !== 'object' || Array.isArray(decisions))
    throw new InvalidAgentOptionsError({
      field: 'decisions',
      message:
        'decisions must be an object with a decision per pending approval id, e.g. { "call_1": true, "call_2": { approved: false, reason: "not today" } }',
    });
  return decisions;
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
  for (const hook of ['prepareStep'] as const) {
    if (options[hook] !== undefined && typeof options[hook] !== 'function') {
      throw new InvalidAgentOptionsError({
        field: hook,
        message: `${hook} must be a function (got ${typeof options[hook]})`,
      });
    }
  }
  if (
    options.activeTools !== undefined &&
    (!Array.isArray(options.activeTools) ||
      options.activeTools.some((name: unknown) => typeof name !== 'string'))
  ) {
    throw new InvalidAgentOptionsError({
      field: 'activeTools',
      message: 'activeTools must be an array of tool names',
    });
  }
  const stopWhen =
    options.stopWhen === undefined
      ? []
      : Array.isArray(options.stopWhen)
        ? options.stopWhen
        : [options.stopWhen];
  stopWhen.forEach((condition: unknown, index: number) => {
    if (typeof condition !== 'function')
      throw new InvalidAgentOptionsError({
        field: `stopWhen[${index}]`,
        message: `stopWhen must be a condition (a function such as stepCountIs(5)) or an array of them; item ${index} is ${typeof condition}`,
      });
  });
  const guardrails = {
    input: options.guardrails?.input ?? [],
    output: options.guardrails?.output ?? [],
  };
  for (const stage of ['input', 'output'] as const) {
    guardrails[stage].forEach((guardrail: { name?: unknown; check?: unknown }, index: number) => {
      if (typeof guardrail?.name !== 'string' || typeof guardrail.check !== 'function')
        throw new InvalidAgentOptionsError({
          field: `guardrails.${stage}[${index}]`,
          message: `guardrails.${stage}[${index}] must be { name, check(request) } (with an optional tools list)`,
        });
    });
  }
  if (options.pauseForApproval && mode === 'staged') {
    throw new InvalidAgentOptionsError({
      field: 'pauseForApproval',
      message:
        'pauseForApproval works in the tool loop (modes direct, code, gateway), not in the staged pipeline',
    });
  }
  if (options.mcpServers !== undefined && !Array.isArray(options.mcpServers)) {
    throw new InvalidAgentOptionsError({
      field: 'mcpServers',
      message: 'mcpServers must be an array of { name, url, ... } remote MCP servers',
    });
  }
  if (options.system !== undefined && typeof options.system !== 'string') {
    throw new InvalidAgentOptionsError({
      field: 'system',
      message: `system must be a string (got ${typeof options.system})`,
    });
  }
  return {
    prepareStep: options.prepareStep,
    activeTools: options.activeTools,
    stopWhen,
    guardrails,
    pauseForApproval: options.pauseForApproval === true,
    mcpServers: options.mcpServers,
    tracer: options.telemetry?.tracer ?? defaultTracer(),
    agentName: options.telemetry?.agentName ?? 'toolwire-agent',
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
