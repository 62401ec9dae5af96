import type {
  AssistantMessage,
  ChatModel,
  ChatRequest,
  ChatResponse,
  Message,
  ToolMessage,
  ToolSpec,
} from '@toolwire/schema';
import type { ApprovalDecision, StepSettings } from './agent-options.js';
import { awaitingApproval, type AgentRunState, type PendingApproval } from './agent-state.js';
import type { AgentFinishReason, AgentStep } from './agent-transcript.js';
import { InvalidAgentOptionsError } from './agent-errors.js';
import {
  FUNCTION_CALL_JSON_FORM,
  isToolCallingUnsupported,
  promptToolsInstruction,
  readPromptAnswer,
  toPromptMessages,
} from './prompt-tool-calling.js';
import {
  baseRequest,
  beginStep,
  callModel,
  describeRequest,
  finishStep,
  raceAbort,
  recordResponse,
  warn,
  withSystem,
  withUniqueIds,
  type RunContext,
} from './run-context.js';
import {
  approvalsNeeded,
  decideApprovals,
  executePreparedCalls,
  prepareToolCalls,
  recheckToolCalls,
  type PreparedCall,
} from './run-tool-calls.js';

export interface RunOutcome {
  text: string;
  finishReason: AgentFinishReason;
  messages: Message[];
  /** Set when the run paused for approvals. */
  paused?: { approvals: PendingApproval[]; calls: AgentRunState['pending'] };
  /** Model calls the loop made (what a paused run carries on with). */
  modelCalls?: number;
}

/** Where a resumed run picks up: the paused step and the decisions for it. */
export interface ResumePoint {
  state: AgentRunState;
  decisions: Readonly<Record<string, ApprovalDecision>>;
}

/**
 * The tool loop (seed 001): call the model with the tools; run the calls it makes in parallel;
 * continue with the results; stop when it answers without calling a tool. Each step may be
 * changed by `prepareStep` (model, active tools, tool choice, system prompt), `stopWhen` may end
 * the run after a step, and a step whose calls need approval may pause the run
 * (`pauseForApproval`) to be resumed later, in this process or another. After `maxSteps` model
 * calls that all called tools, one more call is made with tool use switched off, so the user
 * always gets an answer (pain point 11).
 *
 * That last call keeps the tools declared and sends `toolChoice: 'none'` when the model's
 * adapter enforces it: dropping the tools from a request whose history has tool calls makes
 * some providers reject it (Anthropic wants tools declared when the history has tool blocks).
 * Adapters that cannot enforce `none` (Ollama ignores tool_choice) get no tools instead, which
 * those providers accept with tool history.
 */
export async function runToolLoop(context: RunContext, resume?: ResumePoint): Promise<RunOutcome> {
  const { model, options, specs } = context;
  const conversation: Message[] = resume ? [...resume.state.messages] : [...context.input];
  const tools = specs.length > 0 ? [...specs] : undefined;
  let count = resume ? resume.state.modelCalls : 0;

  if (resume) {
    const step = context.steps.at(-1)!;
    const prepared = recheckToolCalls(
      context,
      resume.state.pending.calls,
      resume.state.pending.outputTruncated,
    );
    for (const approval of resume.state.pending.approvals) {
      if (!(approval.id in resume.decisions))
        throw new InvalidAgentOptionsError({
          field: `decisions.${approval.id}`,
          message: `decisions has no answer for "${approval.id}" (${approval.toolName}); answer every pending approval, e.g. { "${approval.id}": true }`,
        });
    }
    const approvals = await decideApprovals(
      context,
      step,
      prepared,
      resume.state.pending.approvals,
      resume.decisions,
    );
    const stopped = await finishToolStep(context, step, conversation, prepared, approvals);
    if (stopped) return { ...stopped, modelCalls: count };
  }

  while (count < options.maxSteps) {
    count++;
    const settings = await stepSettings(context, conversation, count);
    const stepModel = settings.model ?? model;
    const request = loopRequest(context, conversation, tools, settings);
    const step = beginStep(context, 'tool-loop', request);
    const response = await callLoopModel(context, step, request, conversation, tools, stepModel);
    recordResponse(context, step, response);
    const providerCalls = response.providerToolCalls ?? [];
    step.providerToolCalls = providerCalls;
    for (const call of providerCalls)
      context.emit({ type: 'provider-tool-call', step: step.index, call });
    let toolCalls = response.toolCalls;
    let text = response.text;
    if (context.promptToolCalling && tools !== undefined) {
      const answer = readPromptAnswer(response.text);
      if (answer.kind === 'invalid') {
        // The model tried to call and got the form wrong: it is told, and tries again.
        warn(context, step, {
          type: 'other',
          message: `the prompt-based tool call could not be read: ${answer.problem}`,
        });
        conversation.push(
          { role: 'assistant', content: response.text },
          {
            role: 'user',
            content: `Your function call could not be used: ${answer.problem}. Answer with only the JSON form ${FUNCTION_CALL_JSON_FORM}, or answer in plain text.`,
          },
        );
        finishStep(context, step);
        continue;
      }
      if (answer.kind === 'calls') {
        toolCalls = answer.calls;
        text = '';
      } else {
        // Streamed silently (it might have been a call): the answer is given now.
        context.emit({ type: 'text-delta', step: step.index, delta: response.text });
      }
    }
    const assistant = assistantOf(response, text);
    const providerRequests = awaitingApproval(providerCalls);
    if (toolCalls.length === 0 && providerRequests.length === 0) {
      conversation.push(assistant);
      finishStep(context, step);
      return {
        text,
        finishReason: response.finishReason,
        messages: conversation,
        modelCalls: count,
      };
    }
    const modelCalls = withUniqueIds(context, step, toolCalls, conversation);
    if (modelCalls.length > 0) assistant.toolCalls = modelCalls;
    conversation.push(assistant);
    for (const toolCall of modelCalls)
      context.emit({ type: 'tool-call', step: step.index, toolCall });
    const outputTruncated = response.finishReason === 'length';
    const prepared = await prepareToolCalls(context, step, modelCalls, {
      outputTruncated,
      messages: [...conversation],
      activeTools: settings.activeTools,
    });
    // Repaired calls replace the model's, so each result answers the call next to it.
    const calls = prepared.map((entry) => entry.call);
    if (calls.length > 0) assistant.toolCalls = calls;
    step.toolCalls = calls;
    const needed = approvalsNeeded(context, prepared, providerRequests);
    const approvals = await decideApprovals(context, step, prepared, needed);
    if (approvals.pending.length > 0) {
      // Nothing of this step has run: a resumed run runs all of it, nothing twice.
      return {
        text,
        finishReason: 'needs-approval',
        messages: conversation,
        modelCalls: count,
        paused: {
          approvals: approvals.pending,
          calls: { calls, outputTruncated, approvals: approvals.pending },
        },
      };
    }
    const stopped = await finishToolStep(context, step, conversation, prepared, approvals);
    if (stopped) return { ...stopped, modelCalls: count };
  }

  const prompted = context.promptToolCalling;
  const keepTools = tools !== undefined && !prompted && model.capabilities.toolChoice.none;
  const request: ChatRequest = {
    ...baseRequest(context),
    messages: withSystem(context, prompted ? toPromptMessages(conversation) : conversation),
    ...(keepTools ? { tools, toolChoice: 'none' as const } : {}),
  };
  const step = beginStep(context, 'final-answer', request);
  const response = await callModel(context, step, request, true);
  recordResponse(context, step, response);
  if (response.toolCalls.length > 0) {
    // The step limit is spent: the calls are not run, and not kept in the conversation, where
    // they would stand without results.
    warn(context, step, {
      type: 'tool-choice-ignored',
      message: `the model called ${response.toolCalls.map((c) => c.name).join(', ')} after the step limit (${options.maxSteps}); those calls were not run`,
    });
    step.toolCalls = response.toolCalls;
  }
  conversation.push(assistantOf(response, response.text));
  finishStep(context, step);
  return {
    text: response.text,
    finishReason: 'max-steps',
    messages: conversation,
    modelCalls: count,
  };
}

function assistantOf(response: ChatResponse, text: string): AssistantMessage {
  const assistant: AssistantMessage = { role: 'assistant', content: text };
  if (response.reasoning && response.reasoning.length > 0) assistant.reasoning = response.reasoning;
  if (response.providerMetadata) assistant.providerMetadata = response.providerMetadata;
  return assistant;
}

/**
 * Runs a step's calls (approved, guarded), adds the tool message, ends the step, and asks the
 * stop conditions; returns the outcome when one holds.
 */
async function finishToolStep(
  context: RunContext,
  step: AgentStep,
  conversation: Message[],
  prepared: readonly PreparedCall[],
  approvals: Awaited<ReturnType<typeof decideApprovals>>,
): Promise<RunOutcome | undefined> {
  // Invalid arguments and unknown tools go back to the model as tool errors, never thrown.
  const results = await executePreparedCalls(context, step, prepared, approvals);
  step.toolResults = results;
  const message: ToolMessage = { role: 'tool', results };
  if (approvals.provider.length > 0) message.approvals = approvals.provider;
  conversation.push(message);
  finishStep(context, step);
  for (const condition of context.options.stopWhen) {
    const stop = await raceAbort(
      Promise.resolve(condition({ steps: context.steps, messages: conversation })),
      context.signal,
    );
    if (stop)
      return {
        text: step.response?.text ?? '',
        finishReason: 'stop-condition',
        messages: conversation,
      };
  }
  return undefined;
}

/** The run's settings for a step, changed by `prepareStep` when there is one. */
async function stepSettings(
  context: RunContext,
  conversation: readonly Message[],
  count: number,
): Promise<StepSettings> {
  const base: StepSettings = context.options.activeTools
    ? { activeTools: context.options.activeTools }
    : {};
  const hook = context.options.prepareStep;
  if (!hook) return base;
  const changed = await raceAbort(
    Promise.resolve(
      hook({
        step: count,
        steps: context.steps,
        messages: conversation,
        model: context.model,
        signal: context.signal,
      }),
    ),
    context.signal,
  );
  if (changed === undefined || changed === null) return base;
  if (typeof changed !== 'object')
    throw new InvalidAgentOptionsError({
      field: 'prepareStep',
      message: `prepareStep must return step settings or nothing (got ${typeof changed})`,
    });
  return { ...base, ...changed };
}

/** A loop step's request: native tools, or (prompt-based tool calling) the tools in the prompt. */
function loopRequest(
  context: RunContext,
  conversation: readonly Message[],
  tools: ToolSpec[] | undefined,
  settings: StepSettings = {},
): ChatRequest {
  const system = settings.system ?? context.options.system;
  if (tools !== undefined && context.promptToolCalling) {
    const active = settings.activeTools;
    const offered = active ? tools.filter((tool) => active.includes(tool.name)) : tools;
    return {
      ...baseRequest(context),
      messages: [
        {
          role: 'system',
          content: [system, promptToolsInstruction(offered)]
            .filter((part) => part !== undefined)
            .join('\n\n'),
        },
        ...toPromptMessages(conversation),
      ],
    };
  }
  const mcpServers = context.options.mcpServers;
  return {
    ...baseRequest(context),
    messages:
      system === undefined
        ? [...conversation]
        : [{ role: 'system', content: system }, ...conversation],
    ...(tools ? { tools, toolChoice: stepChoice(settings) } : {}),
    ...(mcpServers && mcpServers.length > 0 ? { mcpServers: [...mcpServers] } : {}),
  };
}

/** The step's tool choice: its own, narrowed to the active tools with an `allowed` set. */
function stepChoice(settings: StepSettings): NonNullable<ChatRequest['toolChoice']> {
  const choice = settings.toolChoice ?? 'auto';
  const active = settings.activeTools;
  if (!active || active.length === 0 || typeof choice === 'object' || choice === 'none')
    return active && active.length === 0 ? 'none' : choice;
  return { type: 'allowed', toolNames: active, mode: choice === 'required' ? 'required' : 'auto' };
}

/**
 * Calls the model for a loop step. With `toolCalling: 'auto'`, a model that turns tools down
 * (`UnsupportedFeatureError`) switches the run to prompt-based tool calling and the step is
 * sent again that way. In prompt mode text is not streamed as it comes: it may be a call.
 */
async function callLoopModel(
  context: RunContext,
  step: AgentStep,
  request: ChatRequest,
  conversation: readonly Message[],
  tools: ToolSpec[] | undefined,
  model: ChatModel,
): Promise<ChatResponse> {
  const prompted = context.promptToolCalling && tools !== undefined;
  try {
    return await callModel(context, step, request, !prompted, model);
  } catch (error) {
    if (
      tools === undefined ||
      prompted ||
      context.options.toolCalling !== 'auto' ||
      !isToolCallingUnsupported(error)
    )
      throw error;
    context.promptToolCalling = true;
    warn(context, step, {
      type: 'unsupported-setting',
      message: `${error.message}; the tools are offered in the prompt from now on (toolCalling: "auto")`,
    });
    const retry = loopRequest(context, conversation, tools);
    step.request = describeRequest(retry);
    return callModel(context, step, retry, false, model);
  }
}
