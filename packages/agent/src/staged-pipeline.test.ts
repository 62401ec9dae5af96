import {
  UnsupportedFeatureError,
  CancelledError,
  InvalidRequestError,
  ServerError,
  type Message,
  type ToolMessage,
} from '@toolwire/schema';
import { describe, expect, it } from 'vitest';
import { createScriptedModel } from '../test/scripted-chat-model.js';
import { calculate, failing, weather } from '../test/test-tools.js';
import { createAgent, SELECTION_SYSTEM_PROMPT, type AgentEvent } from './index.js';

const tools = [calculate, weather, failing];
const select = (...names: string[]) => ({
  text: JSON.stringify({ reasoning: 'needed', selected_tools: names }),
});
/** The text of a system or user message. */
const contentOf = (message: Message | undefined): string =>
  message &&
  (message.role === 'system' || message.role === 'user') &&
  typeof message.content === 'string'
    ? message.content
    : '';
const answer = (content: string) => ({ text: JSON.stringify({ content }) });
// Not retryable, so the stage fails at once (retries have their own tests).
const providerFailure = () => ({
  error: new InvalidRequestError({ provider: 'scripted', message: 'boom', statusCode: 400 }),
});

describe('createAgent (staged pipeline)', () => {
  it('runs discovery, selection, function calling, parallel execution and interpretation', async () => {
    const model = createScriptedModel([
      select('calculate', 'get_weather'),
      {
        toolCalls: [
          { id: 'c1', name: 'get_weather', arguments: { city: 'San Francisco' } },
          { id: 'c2', name: 'calculate', arguments: { a: 2, b: 2, op: '+' } },
        ],
      },
      answer('Sunny in San Francisco, and 2+2 is 4.'),
    ]);
    const result = await createAgent({ model, tools, mode: 'staged' }).run(
      "What's the weather in San Francisco and calculate 2+2",
    );
    expect(result.text).toBe('Sunny in San Francisco, and 2+2 is 4.');
    expect(result.finishReason).toBe('stop');
    expect(result.steps.map((s) => s.kind)).toEqual([
      'discovery',
      'selection',
      'function-calling',
      'execution',
      'interpretation',
    ]);
    const [discovery, selection, calling, execution, interpretation] = result.steps;
    expect(discovery!.stageTools).toEqual(['calculate', 'get_weather', 'flaky_service']);
    expect(discovery!.request).toBeNull();

    // Selection: a constrained JSON answer, tools listed by name, no tools declared.
    const selectionRequest = model.requests[0]!;
    expect(selectionRequest.tools).toBeUndefined();
    expect(selectionRequest.responseFormat).toMatchObject({ type: 'json', name: 'tool_selection' });
    expect(selectionRequest.messages[0]).toEqual({
      role: 'system',
      content: SELECTION_SYSTEM_PROMPT,
    });
    expect(contentOf(selectionRequest.messages[1])).toContain(
      "User input: What's the weather in San Francisco and calculate 2+2",
    );
    expect(contentOf(selectionRequest.messages[1])).toContain('- calculate(a, b, op): Evaluate');
    expect(contentOf(selectionRequest.messages[1])).toContain('- get_weather(city, unit?): Get');
    expect(selection!.stageTools).toEqual(['calculate', 'get_weather']);
    expect(selection!.response!.object).toEqual({
      reasoning: 'needed',
      selected_tools: ['calculate', 'get_weather'],
    });

    // Function calling: only the selected tools, a call forced.
    const callingRequest = model.requests[1]!;
    expect(callingRequest.tools!.map((t) => t.name)).toEqual(['calculate', 'get_weather']);
    expect(callingRequest.toolChoice).toBe('required');
    expect(calling!.request).toMatchObject({
      tools: ['calculate', 'get_weather'],
      toolChoice: 'required',
    });

    // Execution: no model call, both results in call order.
    expect(execution!.request).toBeNull();
    expect(execution!.toolResults.map((r) => [r.toolCallId, r.isError])).toEqual([
      ['c1', false],
      ['c2', false],
    ]);

    // Interpretation: the tool history and a constrained final answer.
    const interpretationRequest = model.requests[2]!;
    expect(interpretationRequest.responseFormat).toMatchObject({ name: 'final_response' });
    const roles = interpretationRequest.messages.map((m) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(interpretation!.response!.object).toEqual({
      content: 'Sunny in San Francisco, and 2+2 is 4.',
    });
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(model.calls).toEqual(['generate', 'generate', 'generate']);
  });

  it("streams the execution stage's calls and results, warnings, and only the answer as text", async () => {
    const model = createScriptedModel([
      { text: "{'reasoning': 'math', 'selected_tools': ['calculate']}" },
      {
        text: 'thinking out loud',
        toolCalls: [{ id: 'k', name: 'calculate', arguments: { a: 1, b: 2, op: '+' } }],
      },
      answer('It is 3.'),
    ]);
    const events: AgentEvent[] = [];
    for await (const event of createAgent({ model, tools, mode: 'staged' }).stream('1+2'))
      events.push(event);
    const brief = events
      .filter((e) => e.type !== 'step-start' && e.type !== 'step-finish')
      .map((e) =>
        e.type === 'text-delta'
          ? `text:${e.delta}`
          : e.type === 'tool-call' || e.type === 'tool-result' || e.type === 'warning'
            ? `${e.type}@${e.step}`
            : e.type,
      );
    expect(brief).toEqual(['warning@2', 'tool-call@4', 'tool-result@4', 'text:It is 3.', 'finish']);
  });

  it("uses the adapter's parsed structured output when it gives one", async () => {
    const model = createScriptedModel([
      { text: '', object: { reasoning: 'r', selected_tools: ['calculate'] } },
      { toolCalls: [{ name: 'calculate', arguments: { a: 3, b: 3, op: '*' } }] },
      { text: '', object: { content: '9' } },
    ]);
    const result = await createAgent({ model, tools, mode: 'staged' }).run('3*3');
    expect(result.text).toBe('9');
  });

  it('repairs a malformed JSON answer and records that it did', async () => {
    const model = createScriptedModel([
      { text: "```json\n{'reasoning': 'math', 'selected_tools': ['calculate'],}\n```" },
      { toolCalls: [{ name: 'calculate', arguments: { a: 1, b: 1, op: '+' } }] },
      { text: '{"content": "2"' },
    ]);
    const result = await createAgent({ model, tools, mode: 'staged' }).run('1+1');
    expect(result.steps[1]!.stageTools).toEqual(['calculate']);
    expect(result.steps[1]!.warnings[0]!.message).toContain('repaired');
    expect(result.text).toBe('2');
  });

  it('falls back to no tools when selection fails', async () => {
    const model = createScriptedModel([providerFailure(), { text: 'Direct answer' }]);
    const result = await createAgent({ model, tools, mode: 'staged' }).run('hi');
    expect(result.text).toBe('Direct answer');
    expect(result.steps.map((s) => s.kind)).toEqual(['discovery', 'selection', 'direct-answer']);
    expect(result.steps[1]!.error).toMatchObject({ name: 'InvalidRequestError', message: 'boom' });
    expect(result.steps[1]!.fallback).toBe('selection failed: answering without tools');
    expect(result.steps[2]!.fallback).toBe('tool selection failed');
    expect(model.requests[1]!.tools).toBeUndefined();
    // run() streams nothing to its caller, so the answer is not asked for as a stream.
    expect(model.calls[1]).toBe('generate');
  });

  it('retries a stage after a retryable provider error before falling back', async () => {
    const overloaded = new ServerError({
      provider: 'scripted',
      message: 'overloaded',
      statusCode: 529,
    });
    const model = createScriptedModel([
      { error: overloaded },
      select('calculate'),
      { toolCalls: [{ name: 'calculate', arguments: { a: 1, b: 1, op: '+' } }] },
      answer('2'),
    ]);
    const result = await createAgent({ model, tools, mode: 'staged', retryDelayMs: 1 }).run('1+1');
    expect(result.text).toBe('2');
    expect(result.steps[1]).toMatchObject({
      kind: 'selection',
      error: null,
      retries: [{ name: 'ServerError', message: 'overloaded' }],
    });
  });

  it('falls back to no tools when the selection answer does not match its schema', async () => {
    const model = createScriptedModel([
      { text: '{"reasoning": "x", "selected_tools": "calculate"}' },
      { text: 'Direct' },
    ]);
    const result = await createAgent({ model, tools, mode: 'staged' }).run('hi');
    expect(result.steps[1]!.error!.name).toBe('StageOutputError');
    expect(result.steps[1]!.error!.message).toContain('/selected_tools');
    expect(result.text).toBe('Direct');
  });

  it('answers directly when no tool is selected', async () => {
    const model = createScriptedModel([select(), { text: 'Hello!' }]);
    const result = await createAgent({ model, tools, mode: 'staged', system: 'Be kind.' }).run(
      'hi',
    );
    expect(result.text).toBe('Hello!');
    expect(result.steps[2]).toMatchObject({
      kind: 'direct-answer',
      fallback: 'no tool was selected',
    });
    expect(model.requests[1]!.messages[0]).toEqual({ role: 'system', content: 'Be kind.' });
  });

  it('answers without tools when discovery fails, and records why', async () => {
    const model = createScriptedModel([{ text: 'Answer without tools' }]);
    const result = await createAgent({
      model,
      mode: 'staged',
      tools: () => {
        throw new Error('registry unreachable');
      },
    }).run('hi');
    expect(result.text).toBe('Answer without tools');
    expect(result.steps[0]).toMatchObject({
      kind: 'discovery',
      stageTools: [],
      fallback: 'discovery failed: answering without tools',
      error: { name: 'Error', message: 'registry unreachable' },
    });
    expect(result.steps[1]).toMatchObject({
      kind: 'direct-answer',
      fallback: 'tool discovery failed',
    });
  });

  it('still throws for a failing tool provider outside staged mode', async () => {
    const agent = createAgent({
      model: createScriptedModel([]),
      tools: () => Promise.reject(new Error('registry unreachable')),
    });
    await expect(agent.run('hi')).rejects.toThrow('registry unreachable');
  });

  it('answers directly, without a selection call, when there are no tools', async () => {
    const model = createScriptedModel([{ text: 'No tools here' }]);
    const result = await createAgent({ model, mode: 'staged' }).run('hi');
    expect(result.steps.map((s) => s.kind)).toEqual(['discovery', 'direct-answer']);
    expect(result.text).toBe('No tools here');
  });

  it('leaves out selected names that are not tools', async () => {
    const model = createScriptedModel([
      select('calculate', 'made_up_tool'),
      { toolCalls: [{ name: 'calculate', arguments: { a: 1, b: 2, op: '+' } }] },
      answer('3'),
    ]);
    const result = await createAgent({ model, tools, mode: 'staged' }).run('1+2');
    expect(result.steps[1]!.stageTools).toEqual(['calculate']);
    expect(result.steps[1]!.warnings[0]!.message).toContain('made_up_tool');
    expect(model.requests[1]!.tools!.map((t) => t.name)).toEqual(['calculate']);
  });

  it('retries function calling once when the model makes no call', async () => {
    const model = createScriptedModel([
      select('calculate'),
      { text: 'I would calculate that.' },
      { toolCalls: [{ name: 'calculate', arguments: { a: 2, b: 5, op: '*' } }] },
      answer('10'),
    ]);
    const result = await createAgent({ model, tools, mode: 'staged' }).run('2*5');
    expect(result.text).toBe('10');
    expect(result.steps.map((s) => s.kind)).toEqual([
      'discovery',
      'selection',
      'function-calling',
      'function-calling',
      'execution',
      'interpretation',
    ]);
    expect(result.steps[2]!.fallback).toBe('function calling failed: retrying once');
    expect(result.steps[2]!.error!.message).toBe('the model made no function call');
  });

  it('tells the retry what was wrong with invalid arguments, then answers directly after a second failure', async () => {
    const bad = { toolCalls: [{ name: 'calculate', arguments: { a: 'two', b: 2, op: '+' } }] };
    const model = createScriptedModel([select('calculate'), bad, bad, { text: 'Cannot compute.' }]);
    const result = await createAgent({ model, tools, mode: 'staged' }).run('two plus 2');
    expect(result.text).toBe('Cannot compute.');
    const retry = model.requests[2]!;
    const feedback = retry.messages.at(-1)!;
    expect(feedback.role).toBe('user');
    expect(contentOf(feedback)).toContain('Your function calls could not be used');
    expect(contentOf(feedback)).toContain('/a');
    expect(result.steps[3]!.fallback).toBe(
      'function calling failed again: answering without tools',
    );
    expect(result.steps[4]).toMatchObject({
      kind: 'direct-answer',
      fallback: 'function calling failed twice',
    });
    expect(model.requests[3]!.tools).toBeUndefined();
  });

  it('answers directly when function calling fails twice with provider errors', async () => {
    const model = createScriptedModel([
      select('calculate'),
      providerFailure(),
      providerFailure(),
      { text: 'Direct' },
    ]);
    const result = await createAgent({ model, tools, mode: 'staged' }).run('x');
    expect(result.text).toBe('Direct');
    expect(result.steps.filter((s) => s.kind === 'function-calling')).toHaveLength(2);
  });

  it('lets the repair hook fix a function call', async () => {
    const model = createScriptedModel([
      select('calculate'),
      { toolCalls: [{ id: 'x', name: 'calculat', arguments: { a: 1, b: 1, op: '+' } }] },
      answer('2'),
    ]);
    const result = await createAgent({
      model,
      tools,
      mode: 'staged',
      repairToolCall: ({ toolCall }) => ({ ...toolCall, name: 'calculate' }),
    }).run('1+1');
    expect(result.text).toBe('2');
    expect(result.steps[2]!.repairs[0]).toMatchObject({
      toolCallId: 'x',
      repaired: { name: 'calculate' },
    });
  });

  it('sends tool errors on to interpretation', async () => {
    const model = createScriptedModel([
      select('flaky_service'),
      { toolCalls: [{ id: 'f', name: 'flaky_service', arguments: {} }] },
      answer('The service is unavailable.'),
    ]);
    const result = await createAgent({ model, tools, mode: 'staged' }).run('check');
    expect(result.text).toBe('The service is unavailable.');
    const sent = model.requests[2]!.messages.at(-1) as ToolMessage;
    expect(sent.results[0]).toMatchObject({ isError: true, error: { category: 'networkError' } });
  });

  it('returns the raw tool results with the error when interpretation fails', async () => {
    const model = createScriptedModel([
      select('get_weather', 'flaky_service'),
      {
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Oslo' } },
          { name: 'flaky_service', arguments: {} },
        ],
      },
      providerFailure(),
    ]);
    const events: string[] = [];
    const agent = createAgent({ model, tools, mode: 'staged' });
    let text = '';
    for await (const event of agent.stream('weather')) {
      events.push(event.type);
      if (event.type === 'text-delta') text += event.delta;
    }
    expect(text).toContain('The answer could not be written (boom)');
    expect(text).toContain('- get_weather: Sunny, 21 C in Oslo');
    expect(text).toContain('- flaky_service (failed): Tool execution failed (networkError)');
    expect(events.at(-1)).toBe('finish');
    const result = await createAgent({
      model: createScriptedModel([
        select('get_weather'),
        { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
        { text: 'not json at all' },
      ]),
      tools,
      mode: 'staged',
    }).run('weather');
    expect(result.finishReason).toBe('error');
    expect(result.steps.at(-1)).toMatchObject({
      kind: 'interpretation',
      fallback: 'interpretation failed: returning the raw tool results',
      error: { name: 'StageOutputError' },
    });
    expect(result.text).toContain('Sunny, 21 C in Oslo');
  });

  it('asks for function calls as JSON when the model has no native tool calling', async () => {
    const model = createScriptedModel(
      [
        select('calculate'),
        {
          text: JSON.stringify({
            tool_calls: [
              {
                id: 'j1',
                type: 'function',
                function: { name: 'calculate', arguments: '{"a":4,"b":4,"op":"+"}' },
              },
            ],
          }),
        },
        answer('8'),
      ],
      { capabilities: { toolCalling: false } },
    );
    const result = await createAgent({ model, tools, mode: 'staged' }).run('4+4');
    expect(result.text).toBe('8');
    const calling = model.requests[1]!;
    expect(calling.tools).toBeUndefined();
    expect(calling.responseFormat).toMatchObject({ name: 'function_calls' });
    expect(result.steps[3]!.toolResults[0]).toMatchObject({
      toolCallId: 'j1',
      content: [{ type: 'json', value: { value: 8 } }],
    });
  });

  it('switches function calling to JSON with toolCalling "auto" when the model turns tools down', async () => {
    const model = createScriptedModel([
      select('calculate'),
      {
        error: new UnsupportedFeatureError({
          feature: 'toolCalling',
          modelId: 'tiny',
          message: 'ollama: model "tiny" does not support tool calling',
        }),
      },
      {
        text: JSON.stringify({
          tool_calls: [
            {
              id: 'j2',
              type: 'function',
              function: { name: 'calculate', arguments: '{"a":2,"b":5,"op":"*"}' },
            },
          ],
        }),
      },
      answer('10'),
    ]);
    const result = await createAgent({ model, tools, mode: 'staged', toolCalling: 'auto' }).run(
      '2*5',
    );
    expect(result.text).toBe('10');
    expect(model.requests[1]!.tools).toHaveLength(1);
    expect(model.requests[2]!.tools).toBeUndefined();
    expect(model.requests[2]!.responseFormat).toMatchObject({ name: 'function_calls' });
    expect(result.steps.find((step) => step.kind === 'function-calling')!.fallback).toBe(
      'the model does not support tools: retrying with the functions in the prompt',
    );
  });

  it('asks for the JSON in the prompt only when the model has no structured output', async () => {
    const model = createScriptedModel(
      [
        select('calculate'),
        { toolCalls: [{ name: 'calculate', arguments: { a: 1, b: 1, op: '+' } }] },
        answer('2'),
      ],
      { capabilities: { structuredOutput: 'none' } },
    );
    const result = await createAgent({ model, tools, mode: 'staged' }).run('1+1');
    expect(result.text).toBe('2');
    expect(model.requests.map((r) => r.responseFormat)).toEqual([undefined, undefined, undefined]);
    expect(contentOf(model.requests[0]!.messages[1])).toContain('Respond in JSON format');
    expect(contentOf(model.requests[2]!.messages[0])).toContain('Respond in JSON format');
  });

  it('asks for approval in the execution stage', async () => {
    const deleted: string[] = [];
    const { deleteTool } = await import('../test/test-tools.js');
    const model = createScriptedModel([
      select('delete_file'),
      { toolCalls: [{ name: 'delete_file', arguments: { path: 'x' } }] },
      answer('Not deleted.'),
    ]);
    const result = await createAgent({
      model,
      tools: [deleteTool(deleted)],
      mode: 'staged',
      approve: () => false,
    }).run('delete x');
    expect(deleted).toEqual([]);
    expect(result.steps[3]!.approvals[0]).toMatchObject({ approved: false });
  });

  it('stops with CancelledError when aborted during a stage, without falling back', async () => {
    const model = createScriptedModel([{ hang: true }, { text: 'should not be asked' }]);
    const controller = new AbortController();
    const run = createAgent({ model, tools, mode: 'staged' }).run('x', {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 5);
    await expect(run).rejects.toBeInstanceOf(CancelledError);
    expect(model.requests).toHaveLength(1);
  });
});
