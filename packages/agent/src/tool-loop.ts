import type { AssistantMessage, ChatRequest, Message } from '@toolwire/schema';
import type { AgentFinishReason } from './agent-transcript.js';
import {
  baseRequest,
  beginStep,
  finishStep,
  recordResponse,
  streamModel,
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
    const request: ChatRequest = {
      ...baseRequest(context),
      messages: withSystem(context, conversation),
      ...(tools ? { tools, toolChoice: 'auto' as const } : {}),
    };
    const step = beginStep(context, 'tool-loop', request);
    const response = await streamModel(context, step, request, true);
    recordResponse(context, step, response);
    const assistant: AssistantMessage = { role: 'assistant', content: response.text };
    if (response.reasoning && response.reasoning.length > 0)
      assistant.reasoning = response.reasoning;
    if (response.providerMetadata) assistant.providerMetadata = response.providerMetadata;
    if (response.toolCalls.length === 0) {
      conversation.push(assistant);
      finishStep(context, step);
      return { text: response.text, finishReason: response.finishReason, messages: conversation };
    }
    const modelCalls = withUniqueIds(context, step, response.toolCalls, conversation);
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

  const keepTools = tools !== undefined && model.capabilities.toolChoice.none;
  const request: ChatRequest = {
    ...baseRequest(context),
    messages: withSystem(context, conversation),
    ...(keepTools ? { tools, toolChoice: 'none' as const } : {}),
  };
  const step = beginStep(context, 'final-answer', request);
  const response = await streamModel(context, step, request, true);
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
