import {
  FinalResponseSchema,
  FunctionCallResponseSchema,
  ToolSelectionResponseSchema,
  formatIssues,
  generateToolCallId,
  parseToolArguments,
  toolResultText,
  userMessageText,
  type ChatRequest,
  type ChatResponse,
  type FinalResponse,
  type FunctionCallResponse,
  type JsonSchema,
  type Message,
  type ResponseFormat,
  type ToolCall,
  type ToolResult,
  type ToolSelectionResponse,
  type ToolSpec,
} from '@toolwire/schema';
import type { AgentStep } from './agent-transcript.js';
import { errorRecord, runCancelled, StageOutputError } from './agent-errors.js';
import {
  baseRequest,
  beginStep,
  finishStep,
  generateModel,
  recordError,
  recordResponse,
  callModel,
  warn,
  withSystem,
  withUniqueIds,
  type RunContext,
} from './run-context.js';
import {
  FUNCTION_CALL_JSON_FORM,
  functionsListText,
  isToolCallingUnsupported,
} from './prompt-tool-calling.js';
import {
  approvalsNeeded,
  decideApprovals,
  executePreparedCalls,
  prepareToolCalls,
  type PreparedCall,
} from './run-tool-calls.js';
import type { RunOutcome } from './tool-loop.js';

export const SELECTION_SYSTEM_PROMPT =
  'You are analyzing user requests to determine which tools would help. Respond with reasoning and selected tool names only.';

const FUNCTION_CALLING_INSTRUCTION =
  "Call the functions needed to answer the user's request, with arguments that match their schemas. Do not answer in text.";

const INTERPRETATION_INSTRUCTION =
  'Answer the user\'s request using the results of the tool calls above; if a tool failed, say what failed. Respond in JSON format: {"content": "<the answer for the user>"}';

/**
 * The staged pipeline (seed 000): discovery → selection → function calling → execution →
 * interpretation, each stage a step of the transcript, with the seed's fallbacks:
 * - discovery fails (the tool provider throws) → no tools;
 * - selection fails (model error, or JSON that does not match even after repair) → no tools;
 * - no tool selected → a direct answer;
 * - function calling fails (model error, no call, an unknown tool or invalid arguments) →
 *   retried once (told what was wrong), then a direct answer;
 * - a tool fails → its error is a result like any other and goes to interpretation;
 * - interpretation fails → the raw tool results, with the error.
 * Selection and interpretation ask for JSON through the provider's structured output
 * (`responseFormat`), then repair and validate it; function calling uses native tool calling
 * with only the selected tools, or the JSON form of seed 000 when the model has no tool calling.
 */
export async function runStagedPipeline(context: RunContext): Promise<RunOutcome> {
  // Stage 0: discovery (the tool list was loaded for this run; no model call).
  const discovery = beginStep(context, 'discovery', null);
  discovery.stageTools = context.specs.map((spec) => spec.name);
  if (context.discoveryError !== undefined) {
    recordError(discovery, context.discoveryError, 'discovery failed: answering without tools');
  }
  finishStep(context, discovery);
  if (context.discoveryError !== undefined) return directAnswer(context, 'tool discovery failed');
  if (context.specs.length === 0) return directAnswer(context, 'no tools were discovered');

  // Stage 1: selection.
  const selected = await selectTools(context);
  if (selected === undefined) return directAnswer(context, 'tool selection failed');
  if (selected.length === 0) return directAnswer(context, 'no tool was selected');

  // Stage 2: function calling, retried once.
  const specs = context.specs.filter((spec) => selected.includes(spec.name));
  let prepared: PreparedCall[] | undefined;
  let feedback: string | undefined;
  for (let attempt = 1; attempt <= 2 && prepared === undefined; attempt++) {
    const result = await callFunctions(context, specs, feedback, attempt);
    if ('prepared' in result) prepared = result.prepared;
    else feedback = result.feedback;
  }
  if (prepared === undefined) return directAnswer(context, 'function calling failed twice');

  // Stage 3: execution. Failures are results and go on to interpretation.
  const calls = prepared.map((entry) => entry.call);
  const execution = beginStep(context, 'execution', null);
  execution.toolCalls = calls;
  for (const toolCall of calls)
    context.emit({ type: 'tool-call', step: execution.index, toolCall });
  const approvals = await decideApprovals(
    context,
    execution,
    prepared,
    approvalsNeeded(context, prepared, []),
  );
  const results = await executePreparedCalls(context, execution, prepared, approvals);
  execution.toolResults = results;
  finishStep(context, execution);

  // Stage 4: interpretation.
  return interpret(context, calls, results);
}

/** A stage's failure falls back; a cancelled run does not. */
function rethrowIfCancelled(context: RunContext): void {
  if (context.signal.aborted) throw runCancelled(context.signal);
}

async function selectTools(context: RunContext): Promise<string[] | undefined> {
  const list = context.specs.map(describeToolBriefly).join('\n');
  const request: ChatRequest = {
    ...baseRequest(context),
    messages: [
      { role: 'system', content: SELECTION_SYSTEM_PROMPT },
      {
        role: 'user',
        content: `User input: ${renderInput(context.input)}\n\nAvailable tools:\n${list}\n\nWhich tools would help with this request? Respond in JSON format: {"reasoning": "...", "selected_tools": ["tool1", "tool2"]}`,
      },
    ],
    ...constrained(context, {
      type: 'json',
      name: 'tool_selection',
      description: 'Which tools would help with the request',
      schema: ToolSelectionResponseSchema as unknown as JsonSchema,
    }),
  };
  const step = beginStep(context, 'selection', request);
  try {
    const response = await generateModel(context, step, request);
    recordResponse(context, step, response);
    const selection = parseStageAnswer<ToolSelectionResponse>(
      context,
      step,
      'selection',
      ToolSelectionResponseSchema as unknown as JsonSchema,
      response,
    );
    const known = [...new Set(selection.selected_tools)].filter((name) =>
      context.toolsByName.has(name),
    );
    const unknown = selection.selected_tools.filter((name) => !context.toolsByName.has(name));
    if (unknown.length > 0) {
      warn(context, step, {
        type: 'other',
        message: `the selection named tools that do not exist, which were left out: ${unknown.join(', ')}`,
      });
    }
    step.stageTools = known;
    finishStep(context, step);
    return known;
  } catch (error) {
    rethrowIfCancelled(context);
    recordError(step, error, 'selection failed: answering without tools');
    step.stageTools = [];
    finishStep(context, step);
    return undefined;
  }
}

async function callFunctions(
  context: RunContext,
  specs: ToolSpec[],
  feedback: string | undefined,
  attempt: number,
): Promise<{ prepared: PreparedCall[] } | { feedback: string | undefined }> {
  const { capabilities } = context.model;
  const native = capabilities.toolCalling && !context.promptToolCalling;
  const system = [context.options.system, FUNCTION_CALLING_INSTRUCTION]
    .filter((part) => part !== undefined)
    .join('\n\n');
  const messages: Message[] = [{ role: 'system', content: system }, ...context.input];
  if (!native) {
    messages.push({
      role: 'user',
      content: `${functionsListText(specs)}\n\nRespond in JSON format: ${FUNCTION_CALL_JSON_FORM}`,
    });
  }
  if (feedback) messages.push({ role: 'user', content: feedback });
  const request: ChatRequest = {
    ...baseRequest(context),
    messages,
    ...(native
      ? {
          tools: specs,
          // The selection already decided tools are needed: force a call where that is enforced.
          toolChoice: capabilities.toolChoice.required ? ('required' as const) : ('auto' as const),
        }
      : constrained(context, {
          type: 'json',
          name: 'function_calls',
          description: 'The function calls to make',
          schema: FunctionCallResponseSchema as unknown as JsonSchema,
        })),
  };
  const step = beginStep(context, 'function-calling', request);
  try {
    const response = await generateModel(context, step, request);
    recordResponse(context, step, response);
    const modelCalls = withUniqueIds(
      context,
      step,
      native ? response.toolCalls : parseFunctionCalls(context, step, response),
      context.input,
    );
    step.toolCalls = modelCalls;
    if (modelCalls.length === 0) {
      throw new StageOutputError({
        stage: 'function-calling',
        message: 'the model made no function call',
      });
    }
    const prepared = await prepareToolCalls(context, step, modelCalls, {
      outputTruncated: response.finishReason === 'length',
      messages,
    });
    step.toolCalls = prepared.map((entry) => entry.call);
    const invalid = prepared.filter((entry) => entry.error !== undefined);
    if (invalid.length > 0) {
      const lines = invalid.map((entry) => `- ${entry.call.name}: ${entry.error!.message}`);
      const error = new StageOutputError({
        stage: 'function-calling',
        message: `${invalid.length} of ${prepared.length} function call(s) could not be used:\n${lines.join('\n')}`,
      });
      recordError(step, error, fallbackText(attempt));
      finishStep(context, step);
      return {
        feedback: `Your function calls could not be used:\n${lines.join('\n')}\nCall the functions again, with arguments that match their schemas.`,
      };
    }
    finishStep(context, step);
    return { prepared };
  } catch (error) {
    rethrowIfCancelled(context);
    // toolCalling 'auto': a model that turns tools down gets the JSON form from the retry on.
    const switching =
      native && context.options.toolCalling === 'auto' && isToolCallingUnsupported(error);
    if (switching) context.promptToolCalling = true;
    recordError(
      step,
      error,
      switching && attempt === 1
        ? 'the model does not support tools: retrying with the functions in the prompt'
        : fallbackText(attempt),
    );
    finishStep(context, step);
    return { feedback: undefined };
  }
}

/**
 * The constraint of a stage, through the provider's structured output. A model without any
 * (`structuredOutput: 'none'`) gets none: the prompt asks for the JSON, and repair plus
 * validation of the answer do the rest.
 */
function constrained(
  context: RunContext,
  format: ResponseFormat,
): { responseFormat: ResponseFormat } | Record<string, never> {
  return context.model.capabilities.structuredOutput === 'none' ? {} : { responseFormat: format };
}

function fallbackText(attempt: number): string {
  return attempt === 1
    ? 'function calling failed: retrying once'
    : 'function calling failed again: answering without tools';
}

function parseFunctionCalls(
  context: RunContext,
  step: AgentStep,
  response: ChatResponse,
): ToolCall[] {
  const value = parseStageAnswer<FunctionCallResponse>(
    context,
    step,
    'function-calling',
    FunctionCallResponseSchema as unknown as JsonSchema,
    response,
  );
  return value.tool_calls.map((call) => ({
    id: call.id.trim() === '' ? generateToolCallId() : call.id,
    name: call.function.name,
    arguments: call.function.arguments,
  }));
}

async function interpret(
  context: RunContext,
  calls: ToolCall[],
  results: ToolResult[],
): Promise<RunOutcome> {
  const history: Message[] = [
    ...context.input,
    { role: 'assistant', content: '', toolCalls: calls },
    { role: 'tool', results },
  ];
  const system = [context.options.system, INTERPRETATION_INSTRUCTION]
    .filter((part) => part !== undefined)
    .join('\n\n');
  const request: ChatRequest = {
    ...baseRequest(context),
    messages: [{ role: 'system', content: system }, ...history],
    ...constrained(context, {
      type: 'json',
      name: 'final_response',
      description: 'The final answer for the user',
      schema: FinalResponseSchema as unknown as JsonSchema,
    }),
  };
  const step = beginStep(context, 'interpretation', request);
  let text: string;
  let finishReason: RunOutcome['finishReason'];
  try {
    const response = await generateModel(context, step, request);
    recordResponse(context, step, response);
    const answer = parseStageAnswer<FinalResponse>(
      context,
      step,
      'interpretation',
      FinalResponseSchema as unknown as JsonSchema,
      response,
    );
    text = answer.content;
    finishReason = response.finishReason;
  } catch (error) {
    rethrowIfCancelled(context);
    recordError(step, error, 'interpretation failed: returning the raw tool results');
    text = rawResultsText(errorRecord(error).message, results);
    finishReason = 'error';
  }
  if (text !== '') context.emit({ type: 'text-delta', step: step.index, delta: text });
  finishStep(context, step);
  return {
    text,
    finishReason,
    messages: [...history, { role: 'assistant', content: text }],
  };
}

/** The answer without tools (no tool selected, or a stage gave up); streamed like any answer. */
async function directAnswer(context: RunContext, reason: string): Promise<RunOutcome> {
  const request: ChatRequest = {
    ...baseRequest(context),
    messages: withSystem(context, context.input),
  };
  const step = beginStep(context, 'direct-answer', request);
  step.fallback = reason;
  const response = await callModel(context, step, request, true);
  recordResponse(context, step, response);
  finishStep(context, step);
  return {
    text: response.text,
    finishReason: response.finishReason,
    messages: [...context.input, { role: 'assistant', content: response.text }],
  };
}

/**
 * Reads a constrained stage's answer: the adapter's parsed `object` when it gave one, else the
 * text, JSON-repaired (quotes, trailing commas, missing brackets, code fences) and validated.
 */
function parseStageAnswer<T>(
  context: RunContext,
  step: AgentStep,
  stage: string,
  schema: JsonSchema,
  response: ChatResponse,
): T {
  const raw = response.object !== undefined ? response.object : response.text;
  const parsed = parseToolArguments<T>(schema, raw, { toolName: stage });
  if (!parsed.success) {
    throw new StageOutputError({
      stage,
      message: `the ${stage} answer is not usable JSON (${parsed.error.problem}): ${formatIssues(parsed.error.issues)}`,
      cause: parsed.error,
    });
  }
  if (parsed.repaired) {
    warn(context, step, {
      type: 'other',
      message: `the ${stage} answer was repaired: ${parsed.repairs.join('; ')}`,
    });
  }
  if (step.response) step.response.object = parsed.value;
  return parsed.value;
}

function rawResultsText(error: string, results: readonly ToolResult[]): string {
  const lines = results.map(
    (result) =>
      `- ${result.toolName}${result.isError ? ' (failed)' : ''}: ${toolResultText(result)}`,
  );
  return `The answer could not be written (${error}). Raw tool results:\n${lines.join('\n')}`;
}

function describeToolBriefly(spec: ToolSpec): string {
  const properties =
    spec.inputSchema.properties !== null && typeof spec.inputSchema.properties === 'object'
      ? Object.keys(spec.inputSchema.properties)
      : [];
  const required = new Set(
    Array.isArray(spec.inputSchema.required) ? spec.inputSchema.required : [],
  );
  const params = properties.map((name) => (required.has(name) ? name : `${name}?`)).join(', ');
  return `- ${spec.name}(${params}): ${spec.description}`;
}

/** The conversation as the selection stage reads it: one prompt, or role-labelled turns. */
function renderInput(messages: readonly Message[]): string {
  const turns = messages.filter((m) => m.role === 'user' || m.role === 'assistant');
  if (turns.length === 1 && turns[0]!.role === 'user') return userMessageText(turns[0]!);
  return turns
    .map((m) => (m.role === 'user' ? `user: ${userMessageText(m)}` : `assistant: ${m.content}`))
    .join('\n');
}
