import {
  emptyUsage,
  repairTranscript,
  toToolSpec,
  type AnyTool,
  type Message,
} from '@toolwire/schema';
import { ROOT_CONTEXT as ROOT } from '@opentelemetry/api';
import type { ApprovalDecision } from './agent-options.js';
import { readRunState, type AgentRunState } from './agent-state.js';
import { callerContext, failSpan, runTracer, startAgentSpan } from './agent-telemetry.js';
import type { AgentEvent } from './agent-event.js';
import type { AgentMode, AgentTranscript } from './agent-transcript.js';
import { InvalidAgentOptionsError, runCancelled } from './agent-errors.js';
import type { AgentOptions, ToolListMode, ToolProvider } from './agent-options.js';
import type { AgentResult } from './agent-result.js';
import { EventChannel } from './event-channel.js';
import { raceAbort, roundMs, UNCANCELLABLE, type RunContext } from './run-context.js';
import { runStagedPipeline } from './staged-pipeline.js';
import { resolveOptions } from './resolve-agent-options.js';
import { runToolLoop } from './tool-loop.js';

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
    const tracer = runTracer(resolved.tracer);
    const run = startAgentSpan(
      tracer,
      tracer ? callerContext(traceparent) : ROOT,
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
        tracer,
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
      if (run.span?.isRecording()) {
        run.span.setAttributes({
          'gen_ai.usage.input_tokens': context.usage.inputTokens,
          'gen_ai.usage.output_tokens': context.usage.outputTokens,
          'toolwire.agent.finish_reason': outcome.finishReason,
        });
      }
      run.span?.end();
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
