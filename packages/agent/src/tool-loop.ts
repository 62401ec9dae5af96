import type {
  AssistantMessage,
  ChatRequest,
  ChatResponse,
  Message,
  ToolSpec,
} from '@toolwire/schema';
import type { AgentStep } from './agent-transcript.js';
import {
  FUNCTION_CALL_JSON_FORM,
  isToolCallingUnsupported,
  promptToolsInstruction,
  readPromptAnswer,
  toPromptMessages,
} from './prompt-tool-calling.js';
import type { AgentFinishReason } from './agent-transcript.js';
import {
  baseRequest,
  beginStep,
  describeRequest,
  finishStep,
  recordResponse,
  callModel,
  warn,
  withSystem,
  withUniqueIds,
  type RunContext,
} from './run-context.js';
import { executePreparedCalls, prepareToolCalls } from './run-tool-calls.js';

export interface RunOutcome {
  text: string;
  finishReason: AgentFinishReason;
  messages: Message[];
}

/**
 * The tool loop (seed 001): call the model with the tools; run the calls it makes in parallel;
 * continue with the results; stop when it answers without calling a tool. After `maxSteps`
 * model calls that all called tools, one more call is made with tool use switched off, so the
 * user always gets an answer (pain point 11).
 *
 * That last call keeps the tools declared and sends `toolChoice: 'none'` when the model's
 * adapter enforces it: dropping the tools from a request whose history has tool calls makes
 * some providers reject it (Anthropic wants tools declared when the history has tool blocks).
 * Adapters that cannot enforce `none` (Ollama ignores tool_choice) get no tools instead, which
 * those providers accept with tool history.
 */
export async function runToolLoop(context: RunContext): Promise<RunOutcome> {
  const { model, options, specs } = context;
  const conversation: Message[] = [...context.input];
  const tools = specs.length > 0 ? [...specs] : undefined;

  for (let count = 1; count <= options.maxSteps; count++) {
    const request = loopRequest(context, conversation, tools);
    const step = beginStep(context, 'tool-loop', request);
    const response = await callLoopModel(context, step, request, conversation, tools);
    recordResponse(context, step, response);
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
    const assistant: AssistantMessage = { role: 'assistant', content: text };
    if (response.reasoning && response.reasoning.length > 0)
      assistant.reasoning = response.reasoning;
    if (response.providerMetadata) assistant.providerMetadata = response.providerMetadata;
    if (toolCalls.length === 0) {
      conversation.push(assistant);
      finishStep(context, step);
      return { text, finishReason: response.finishReason, messages: conversation };
    }
    const modelCalls = withUniqueIds(context, step, toolCalls, conversation);
    assistant.toolCalls = modelCalls;
    conversation.push(assistant);
    for (const toolCall of modelCalls)
      context.emit({ type: 'tool-call', step: step.index, toolCall });
    const prepared = await prepareToolCalls(context, step, modelCalls, {
      outputTruncated: response.finishReason === 'length',
      messages: [...conversation],
    });
    // Repaired calls replace the model's, so each result answers the call next to it.
    const calls = prepared.map((entry) => entry.call);
    assistant.toolCalls = calls;
    step.toolCalls = calls;
    // Invalid arguments and unknown tools go back to the model as tool errors, never thrown.
    const results = await executePreparedCalls(context, step, prepared);
    step.toolResults = results;
    conversation.push({ role: 'tool', results });
    finishStep(context, step);
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
  const assistant: AssistantMessage = { role: 'assistant', content: response.text };
  if (response.reasoning && response.reasoning.length > 0) assistant.reasoning = response.reasoning;
  if (response.providerMetadata) assistant.providerMetadata = response.providerMetadata;
  conversation.push(assistant);
  finishStep(context, step);
  return { text: response.text, finishReason: 'max-steps', messages: conversation };
}

/** A loop step's request: native tools, or (prompt-based tool calling) the tools in the prompt. */
function loopRequest(
  context: RunContext,
  conversation: readonly Message[],
  tools: ToolSpec[] | undefined,
): ChatRequest {
  if (tools !== undefined && context.promptToolCalling) {
    const system = [context.options.system, promptToolsInstruction(tools)]
      .filter((part) => part !== undefined)
      .join('\n\n');
    return {
      ...baseRequest(context),
      messages: [{ role: 'system', content: system }, ...toPromptMessages(conversation)],
    };
  }
  return {
    ...baseRequest(context),
    messages: withSystem(context, conversation),
    ...(tools ? { tools, toolChoice: 'auto' as const } : {}),
  };
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
): Promise<ChatResponse> {
  const prompted = context.promptToolCalling && tools !== undefined;
  try {
    return await callModel(context, step, request, !prompted);
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
    return callModel(context, step, retry, false);
  }
}
