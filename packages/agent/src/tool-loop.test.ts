import {
  AuthenticationError,
  CancelledError,
  ConnectionError,
  defineTool,
  RateLimitError,
  ServerError,
  type ToolMessage,
} from '@toolwire/schema';
import { describe, expect, it, vi } from 'vitest';
import { createScriptedModel } from '../test/scripted-chat-model.js';
import { calculate, deleteTool, failing, slowTool, weather } from '../test/test-tools.js';
import { createAgent, type AgentEvent, type AgentResult } from './index.js';

function toolMessage(messages: readonly unknown[], index: number): ToolMessage {
  return messages[index] as ToolMessage;
}

describe('createAgent (tool loop)', () => {
  it('answers without tools in one step', async () => {
    const model = createScriptedModel([
      { text: 'Hello there', usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } },
    ]);
    const result = await createAgent({ model, tools: [calculate] }).run('hi');
    expect(result.text).toBe('Hello there');
    expect(result.finishReason).toBe('stop');
    expect(result.steps).toHaveLength(1);
    expect(result.steps[0]!.kind).toBe('tool-loop');
    expect(result.steps[0]!.request).toEqual({
      tools: ['calculate'],
      toolChoice: 'auto',
      responseFormat: null,
      messageCount: 1,
    });
    expect(result.usage).toEqual({ inputTokens: 3, outputTokens: 2, totalTokens: 5 });
    expect(result.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello there' },
    ]);
  });

  it('sends no tools and no tool choice when there are no tools', async () => {
    const model = createScriptedModel([{ text: 'ok' }]);
    await createAgent({ model }).run('hi');
    expect(model.requests[0]!.tools).toBeUndefined();
    expect(model.requests[0]!.toolChoice).toBeUndefined();
  });

  it('runs tool calls, continues with their results, and stops when the model answers', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'calculate', arguments: '{"a":2,"b":2,"op":"+"}' }] },
      { text: '2+2 is 4' },
    ]);
    const result = await createAgent({ model, tools: [calculate], system: 'Be brief.' }).run(
      '2+2?',
    );
    expect(result.text).toBe('2+2 is 4');
    expect(result.steps.map((s) => s.kind)).toEqual(['tool-loop', 'tool-loop']);
    expect(result.steps[0]!.toolResults[0]).toMatchObject({
      toolCallId: 'c1',
      isError: false,
      content: [{ type: 'json', value: { value: 4 } }],
    });
    const second = model.requests[1]!;
    expect(second.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(second.messages[2]).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'c1' }] });
    expect(toolMessage(second.messages, 3).results[0]!.toolCallId).toBe('c1');
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('runs the calls of one turn in parallel and returns results in call order', async () => {
    let running = 0;
    let peak = 0;
    let bothRunning!: () => void;
    const together = new Promise<void>((resolve) => (bothRunning = resolve));
    const gate = defineTool({
      name: 'wait_a_bit',
      description: 'Waits until a second call of it is running too',
      inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      execute: async ({ n }) => {
        running++;
        peak = Math.max(peak, running);
        // Each call waits until both are in flight: with sequential execution this would hang.
        if (running === 2) bothRunning();
        await together;
        running--;
        return `done ${String(n)}`;
      },
    });
    const model = createScriptedModel([
      {
        toolCalls: [
          { id: 'a', name: 'wait_a_bit', arguments: { n: 1 } },
          { id: 'b', name: 'wait_a_bit', arguments: { n: 2 } },
        ],
      },
      { text: 'both done' },
    ]);
    const result = await createAgent({ model, tools: [gate] }).run('go');
    expect(peak).toBe(2);
    expect(result.steps[0]!.toolResults.map((r) => r.toolCallId)).toEqual(['a', 'b']);
    expect(toolMessage(model.requests[1]!.messages, 2).results.map((r) => r.content)).toEqual([
      [{ type: 'text', text: 'done 1' }],
      [{ type: 'text', text: 'done 2' }],
    ]);
  });

  it('runs at most `concurrency` calls at once', async () => {
    let running = 0;
    let peak = 0;
    const counted = defineTool({
      name: 'counted',
      description: 'Counts how many calls run at the same time',
      inputSchema: { type: 'object', properties: {} },
      execute: async () => {
        running++;
        peak = Math.max(peak, running);
        // One turn of the event loop: calls started together would all be running by then.
        await new Promise((r) => setImmediate(r));
        running--;
        return 'ok';
      },
    });
    const model = createScriptedModel([
      { toolCalls: [1, 2, 3, 4].map((i) => ({ id: `c${i}`, name: 'counted', arguments: {} })) },
      { text: 'done' },
    ]);
    await createAgent({ model, tools: [counted], concurrency: 1 }).run('go');
    expect(peak).toBe(1);
  });

  it('gives a failing tool its error as the result and lets the model go on', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'f', name: 'flaky_service', arguments: {} }] },
      { text: 'The service is down.' },
    ]);
    const result = await createAgent({ model, tools: [failing] }).run('check');
    expect(result.text).toBe('The service is down.');
    const sent = toolMessage(model.requests[1]!.messages, 2).results[0]!;
    expect(sent.isError).toBe(true);
    expect(sent.error).toEqual({ category: 'networkError', message: 'service unavailable' });
    expect(sent.content[0]).toEqual({
      type: 'text',
      text: 'Tool execution failed (networkError): service unavailable',
    });
  });

  it('returns invalid arguments to the model as a tool error naming the problem, without running the tool', async () => {
    let ran = false;
    const strict = defineTool({
      name: 'set_volume',
      description: 'Set the speaker volume between 0 and 10',
      inputSchema: {
        type: 'object',
        properties: { level: { type: 'integer', minimum: 0, maximum: 10 } },
        required: ['level'],
      },
      execute: () => {
        ran = true;
        return 'ok';
      },
    });
    const model = createScriptedModel([
      { toolCalls: [{ id: 'v', name: 'set_volume', arguments: '{"level": 42}' }] },
      { text: 'Sorry, 42 is too loud.' },
    ]);
    const result = await createAgent({ model, tools: [strict] }).run('volume 42');
    expect(ran).toBe(false);
    const sent = result.steps[0]!.toolResults[0]!;
    expect(sent.isError).toBe(true);
    expect(sent.error!.category).toBe('invalidArguments');
    expect(sent.error!.message).toContain('/level');
    expect(sent.error!.message).toContain('<= 10');
    expect(sent.durationMs).toBe(0);
    expect(result.text).toBe('Sorry, 42 is too loud.');
  });

  it('tells the model about truncated arguments when the output hit the token limit', async () => {
    const model = createScriptedModel([
      {
        toolCalls: [{ id: 't', name: 'get_weather', arguments: '{"city": "Par' }],
        finishReason: 'length',
      },
      { text: 'retrying later' },
    ]);
    const result = await createAgent({ model, tools: [weather] }).run('weather');
    expect(result.steps[0]!.toolResults[0]!.error!.message).toContain('truncated');
  });

  it('answers a call of an unknown tool with a not-found error that suggests the nearest name', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'u', name: 'get_wether', arguments: { city: 'Oslo' } }] },
      { text: 'ok' },
    ]);
    const result = await createAgent({ model, tools: [weather] }).run('weather');
    const sent = result.steps[0]!.toolResults[0]!;
    expect(sent.error!.category).toBe('resourceNotFound');
    expect(sent.error!.message).toContain('did you mean "get_weather"');
  });

  it("lets the repair hook fix a call, runs the fixed call under the model's id and records the repair", async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'r', name: 'calculate', arguments: '{"a":"2","b":3,"op":"*"}' }] },
      { text: '6' },
    ]);
    const seen: string[] = [];
    const result = await createAgent({
      model,
      tools: [calculate],
      repairToolCall: ({ toolCall, error }) => {
        seen.push(error.message);
        return { id: 'ignored', name: toolCall.name, arguments: { a: 2, b: 3, op: '*' } };
      },
    }).run('2*3');
    expect(seen[0]).toContain('/a');
    const step = result.steps[0]!;
    expect(step.toolResults[0]).toMatchObject({ toolCallId: 'r', isError: false });
    expect(step.toolCalls[0]).toEqual({
      id: 'r',
      name: 'calculate',
      arguments: { a: 2, b: 3, op: '*' },
    });
    expect(step.repairs).toEqual([
      {
        toolCallId: 'r',
        original: { id: 'r', name: 'calculate', arguments: '{"a":"2","b":3,"op":"*"}' },
        repaired: { id: 'r', name: 'calculate', arguments: { a: 2, b: 3, op: '*' } },
        error: seen[0],
      },
    ]);
    // The history sent next holds the repaired call next to its result.
    expect(model.requests[1]!.messages[1]).toMatchObject({
      toolCalls: [{ id: 'r', arguments: { a: 2, b: 3, op: '*' } }],
    });
  });

  it('sends the error to the model when the repair hook gives up', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'r', name: 'nope', arguments: {} }] },
      { text: 'ok' },
    ]);
    const result = await createAgent({ model, tools: [weather], repairToolCall: () => null }).run(
      'x',
    );
    expect(result.steps[0]!.repairs[0]!.repaired).toBeNull();
    expect(result.steps[0]!.toolResults[0]!.error!.category).toBe('resourceNotFound');
  });

  it('asks for approval before a destructive tool and runs it when approved', async () => {
    const deleted: string[] = [];
    const model = createScriptedModel([
      {
        toolCalls: [
          { id: 'd', name: 'delete_file', arguments: { path: 'a.txt' } },
          { id: 'w', name: 'get_weather', arguments: { city: 'Rome' } },
        ],
      },
      { text: 'done' },
    ]);
    const asked: string[] = [];
    const result = await createAgent({
      model,
      tools: [deleteTool(deleted), weather],
      approve: ({ toolCall, arguments: args }) => {
        asked.push(`${toolCall.name} ${JSON.stringify(args)}`);
        return true;
      },
    }).run('clean up');
    expect(asked).toEqual(['delete_file {"path":"a.txt"}']);
    expect(deleted).toEqual(['a.txt']);
    expect(result.steps[0]!.approvals).toEqual([
      { toolCallId: 'd', toolName: 'delete_file', approved: true, reason: null },
    ]);
  });

  it('refuses a destructive call the user does not approve, telling the model why', async () => {
    const deleted: string[] = [];
    const model = createScriptedModel([
      { toolCalls: [{ id: 'd', name: 'delete_file', arguments: { path: 'a.txt' } }] },
      { text: 'I did not delete it.' },
    ]);
    const result = await createAgent({
      model,
      tools: [deleteTool(deleted)],
      approve: () => ({ approved: false, reason: 'keep my files' }),
    }).run('delete a.txt');
    expect(deleted).toEqual([]);
    const sent = result.steps[0]!.toolResults[0]!;
    expect(sent.error!.category).toBe('permissionDenied');
    expect(sent.error!.message).toContain('keep my files');
    expect(result.steps[0]!.approvals[0]).toMatchObject({
      approved: false,
      reason: 'keep my files',
    });
  });

  it('uses needsApproval to decide which calls need approval', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'w', name: 'get_weather', arguments: { city: 'Rome' } }] },
      { text: 'ok' },
    ]);
    const result = await createAgent({
      model,
      tools: [weather],
      approve: () => false,
      needsApproval: (tool) => tool.name === 'get_weather',
    }).run('x');
    expect(result.steps[0]!.toolResults[0]!.error!.category).toBe('permissionDenied');
  });

  it('runs destructive tools without asking when no approve hook is given', async () => {
    const deleted: string[] = [];
    const model = createScriptedModel([
      { toolCalls: [{ id: 'd', name: 'delete_file', arguments: { path: 'b' } }] },
      { text: 'ok' },
    ]);
    await createAgent({ model, tools: [deleteTool(deleted)] }).run('x');
    expect(deleted).toEqual(['b']);
  });

  it('makes one final call with toolChoice "none" and the tools still declared when the step limit is reached', async () => {
    const loop = { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] };
    const model = createScriptedModel([loop, loop, { text: 'It is sunny in Oslo.' }]);
    const result = await createAgent({ model, tools: [weather], maxSteps: 2 }).run('weather?');
    expect(result.text).toBe('It is sunny in Oslo.');
    expect(result.finishReason).toBe('max-steps');
    expect(result.steps.map((s) => s.kind)).toEqual(['tool-loop', 'tool-loop', 'final-answer']);
    const last = model.requests[2]!;
    expect(last.toolChoice).toBe('none');
    expect(last.tools!.map((t) => t.name)).toEqual(['get_weather']);
    expect(result.steps[2]!.request).toMatchObject({ tools: ['get_weather'], toolChoice: 'none' });
    // Every tool call in the history has its result.
    expect(last.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
  });

  it('drops the tools for the final call when the adapter cannot enforce toolChoice "none"', async () => {
    const loop = { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] };
    const model = createScriptedModel([loop, { text: 'Sunny.' }], {
      capabilities: { toolChoice: { auto: true, none: false, required: false, specific: false } },
    });
    const result = await createAgent({ model, tools: [weather], maxSteps: 1 }).run('weather?');
    expect(result.text).toBe('Sunny.');
    expect(model.requests[1]!.tools).toBeUndefined();
    expect(model.requests[1]!.toolChoice).toBeUndefined();
    expect(result.steps[1]!.request).toMatchObject({ tools: [], toolChoice: null });
  });

  it('does not run tool calls the model makes in the final call, and warns', async () => {
    const loop = { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] };
    const model = createScriptedModel([loop, { text: 'Partial answer', ...loop }]);
    let ran = 0;
    const counting = { ...weather, execute: () => `run ${++ran}` };
    const result = await createAgent({ model, tools: [counting], maxSteps: 1 }).run('x');
    expect(ran).toBe(1);
    expect(result.text).toBe('Partial answer');
    expect(result.steps[1]!.warnings[0]!.message).toContain('not run');
    // The unanswered call is not left in the conversation.
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: 'Partial answer' });
  });

  it('gives a call whose id was already used a fresh id, so each result answers its own call', async () => {
    const model = createScriptedModel([
      {
        toolCalls: [
          { id: 'same', name: 'get_weather', arguments: { city: 'Oslo' } },
          { id: 'same', name: 'get_weather', arguments: { city: 'Rome' } },
        ],
      },
      { toolCalls: [{ id: 'same', name: 'get_weather', arguments: { city: 'Pisa' } }] },
      { text: 'ok' },
    ]);
    const called: string[] = [];
    const answered: string[] = [];
    let result: AgentResult | undefined;
    for await (const event of createAgent({ model, tools: [weather] }).stream('weather')) {
      if (event.type === 'tool-call') called.push(event.toolCall.id);
      if (event.type === 'tool-result') answered.push(event.result.toolCallId);
      if (event.type === 'finish') result = event.result;
    }
    if (!result) throw new Error('no finish event');
    const ids = result.steps.flatMap((s) => s.toolCalls.map((c) => c.id));
    // The events carry the settled ids, so a UI can pair each call with its result.
    expect(called).toEqual(ids);
    expect([...answered].sort()).toEqual([...ids].sort());
    expect(ids[0]).toBe('same');
    expect(new Set(ids).size).toBe(3);
    expect(result.steps[0]!.toolResults.map((r) => r.toolCallId)).toEqual(ids.slice(0, 2));
    expect(result.steps[0]!.warnings[0]!.message).toContain(
      '"same" (get_weather) was already used',
    );
    expect(result.steps[1]!.toolResults[0]!.content).toEqual([
      { type: 'text', text: 'Sunny, 21 C in Pisa' },
    ]);
  });

  it('sums usage over every step, optional counters included', async () => {
    const model = createScriptedModel([
      {
        toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
        usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110, cachedInputTokens: 40 },
      },
      { text: 'ok', usage: { inputTokens: 150, outputTokens: 20, totalTokens: 170 } },
    ]);
    const result = await createAgent({ model, tools: [weather] }).run('x');
    expect(result.usage).toEqual({
      inputTokens: 250,
      outputTokens: 30,
      totalTokens: 280,
      cachedInputTokens: 40,
    });
    expect(result.transcript.usage).toEqual(result.usage);
    expect(result.steps.map((s) => s.usage.totalTokens)).toEqual([110, 170]);
  });

  it('times out a slow tool call with an executionTimeout error', async () => {
    const seen = { aborted: false, started: false };
    const model = createScriptedModel([
      { toolCalls: [{ name: 'slow_job', arguments: {} }] },
      { text: 'gave up' },
    ]);
    const result = await createAgent({ model, tools: [slowTool(seen)], toolTimeoutMs: 20 }).run(
      'x',
    );
    expect(result.steps[0]!.toolResults[0]!.error!.category).toBe('executionTimeout');
    expect(seen.aborted).toBe(true);
  });

  it('propagates a provider error unchanged', async () => {
    const error = new AuthenticationError({
      provider: 'scripted',
      message: 'bad key',
      statusCode: 401,
    });
    const model = createScriptedModel([{ error }]);
    await expect(createAgent({ model }).run('x')).rejects.toBe(error);
    expect(model.requests).toHaveLength(1);
  });

  it('sends a rate-limited call again after the retry-after and records the retry', async () => {
    const limited = new RateLimitError({
      provider: 'scripted',
      message: 'slow down',
      statusCode: 429,
      retryAfterMs: 1,
    });
    const model = createScriptedModel([{ error: limited }, { text: 'ok' }]);
    const result = await createAgent({ model }).run('x');
    expect(result.text).toBe('ok');
    expect(model.requests).toHaveLength(2);
    expect(result.steps).toHaveLength(1);
    expect(result.steps[0]!.retries).toEqual([
      { name: 'RateLimitError', code: 'rate_limited', message: 'slow down' },
    ]);
  });

  it('gives up after maxRetries and throws the last error', async () => {
    const failure = () => ({
      error: new ServerError({ provider: 'scripted', message: 'down', statusCode: 503 }),
    });
    const model = createScriptedModel([failure(), failure(), failure()]);
    await expect(
      createAgent({ model, maxRetries: 2, retryDelayMs: 1 }).run('x'),
    ).rejects.toMatchObject({ name: 'ServerError', message: 'down' });
    expect(model.requests).toHaveLength(3);
  });

  it('does not retry a call whose text was already streamed', async () => {
    const dropped = new ConnectionError({
      provider: 'scripted',
      message: 'socket closed',
      retryable: true,
    });
    const model = createScriptedModel([]);
    let calls = 0;
    // A stream that yields text, then fails.
    const streaming = {
      ...model,
      async *stream() {
        calls++;
        yield { type: 'text-delta' as const, delta: 'Hel' };
        throw dropped;
      },
    };
    // Only stream() streams the model calls (run() sends them non-streaming).
    const drain = async () => {
      for await (const event of createAgent({ model: streaming, retryDelayMs: 1 }).stream('x'))
        void event;
    };
    await expect(drain()).rejects.toBe(dropped);
    expect(calls).toBe(1);
  });

  it('continues a conversation from the messages of an earlier result', async () => {
    const model = createScriptedModel([{ text: 'I am fine' }, { text: 'You asked how I am' }]);
    const agent = createAgent({ model });
    const first = await agent.run('How are you?');
    const second = await agent.run([
      ...first.messages,
      { role: 'user', content: 'What did I ask?' },
    ]);
    expect(second.text).toBe('You asked how I am');
    expect(model.requests[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });
});

describe('createAgent (abort)', () => {
  it('sends model calls with the caller signal, and without one when run() has none', async () => {
    const model = createScriptedModel([{ text: 'a' }, { text: 'b' }]);
    const agent = createAgent({ model });
    await agent.run('x');
    const controller = new AbortController();
    await agent.run('x', { signal: controller.signal });
    expect(model.requests[0]!.signal).toBeUndefined();
    expect(model.requests[1]!.signal).toBe(controller.signal);
  });

  it('throws CancelledError when aborted while the model is streaming', async () => {
    const model = createScriptedModel([{ hang: true, afterText: 'Thinking' }]);
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    const run = (async () => {
      for await (const event of createAgent({ model }).stream('x', { signal: controller.signal })) {
        events.push(event);
        if (event.type === 'text-delta') controller.abort();
      }
    })();
    await expect(run).rejects.toBeInstanceOf(CancelledError);
    expect(events.map((e) => e.type)).toEqual(['step-start', 'text-delta']);
    expect(model.requests[0]!.signal!.aborted).toBe(true);
  });

  it('stops waiting for an adapter that ignores the abort signal', async () => {
    const model = createScriptedModel([{ hang: true, ignoreSignal: true }]);
    const controller = new AbortController();
    const run = createAgent({ model }).run('x', { signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    await expect(run).rejects.toBeInstanceOf(CancelledError);
  });

  it('aborts running tool calls and throws CancelledError', async () => {
    const seen = { aborted: false, started: false };
    const model = createScriptedModel([{ toolCalls: [{ name: 'slow_job', arguments: {} }] }]);
    const controller = new AbortController();
    const run = createAgent({ model, tools: [slowTool(seen)] }).run('x', {
      signal: controller.signal,
    });
    await vi.waitFor(() => expect(seen.started).toBe(true));
    controller.abort();
    await expect(run).rejects.toBeInstanceOf(CancelledError);
    expect(seen.aborted).toBe(true);
  });

  it('does not wait for an approval prompt nobody answers once the run is aborted', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'delete_file', arguments: { path: 'x' } }] },
    ]);
    const controller = new AbortController();
    let asked = false;
    const run = createAgent({
      model,
      tools: [deleteTool()],
      approve: () => {
        asked = true;
        return new Promise<boolean>(() => undefined);
      },
    }).run('x', { signal: controller.signal });
    await vi.waitFor(() => expect(asked).toBe(true));
    controller.abort();
    await expect(run).rejects.toBeInstanceOf(CancelledError);
  });

  it('does not call the model when the signal is already aborted', async () => {
    const model = createScriptedModel([{ text: 'x' }]);
    await expect(
      createAgent({ model }).run('x', { signal: AbortSignal.abort() }),
    ).rejects.toBeInstanceOf(CancelledError);
    expect(model.requests).toHaveLength(0);
  });

  it('aborts the run when the consumer stops reading the stream', async () => {
    const seen = { aborted: false, started: false };
    const model = createScriptedModel([{ toolCalls: [{ name: 'slow_job', arguments: {} }] }]);
    for await (const event of createAgent({ model, tools: [slowTool(seen)] }).stream('x')) {
      if (event.type === 'tool-call') {
        await vi.waitFor(() => expect(seen.started).toBe(true));
        break;
      }
    }
    await vi.waitFor(() => expect(seen.aborted).toBe(true));
  });
});
