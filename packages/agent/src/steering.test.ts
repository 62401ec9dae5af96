import { toolResultText, type ChatRequest, type ToolResult } from '@toolwire/schema';
import { describe, expect, it } from 'vitest';
import { createScriptedModel } from '../test/scripted-chat-model.js';
import { calculate, deleteTool, weather } from '../test/test-tools.js';
import type { AgentEvent } from './agent-event.js';
import { createAgent } from './create-agent.js';
import { hasToolCall, stepCountIs } from './stop-conditions.js';

const toolMessage = (request: ChatRequest | undefined): ToolResult[] => {
  const last = request?.messages.at(-1);
  return last?.role === 'tool' ? last.results : [];
};

describe('prepareStep and activeTools', () => {
  it('changes the model, system prompt and active tools per step, keeping every tool declared', async () => {
    const first = createScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'calculate', arguments: { a: 1, b: 2, op: '+' } }] },
    ]);
    const second = createScriptedModel([{ text: 'It is 3, and sunny.' }]);
    const seen: number[] = [];
    const agent = createAgent({
      model: first,
      tools: [calculate, weather],
      system: 'Be brief.',
      prepareStep: ({ step, steps }) => {
        seen.push(steps.length);
        return step === 1
          ? { activeTools: ['calculate'], toolChoice: 'required' }
          : { model: second, system: 'Answer in one line.' };
      },
    });
    const result = await agent.run('1+2, and the weather?');
    expect(result.text).toBe('It is 3, and sunny.');
    expect(seen).toEqual([0, 1]);
    expect(first.requests[0]!.tools!.map((tool) => tool.name)).toEqual([
      'calculate',
      'get_weather',
    ]);
    expect(first.requests[0]!.toolChoice).toEqual({
      type: 'allowed',
      toolNames: ['calculate'],
      mode: 'required',
    });
    expect(first.requests[0]!.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(second.requests[0]!.messages[0]).toEqual({
      role: 'system',
      content: 'Answer in one line.',
    });
    expect(second.requests[0]!.toolChoice).toBe('auto');
  });

  it('refuses a call outside the active tools, and tells the model which it may use', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'w1', name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'ok' },
    ]);
    const agent = createAgent({ model, tools: [calculate, weather], activeTools: ['calculate'] });
    const result = await agent.run('weather?');
    const [refused] = toolMessage(model.requests[1]);
    expect(refused).toMatchObject({ isError: true, error: { category: 'permissionDenied' } });
    expect(toolResultText(refused!)).toContain(
      'The tool "get_weather" is not available in this step; use one of: calculate.',
    );
    expect(result.steps[0]!.toolResults[0]!.isError).toBe(true);
  });
});

describe('stopWhen', () => {
  it('ends the run after the step where a condition holds, without another model call', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'calculate', arguments: { a: 2, b: 3, op: '*' } }] },
      { text: 'never sent' },
    ]);
    const agent = createAgent({ model, tools: [calculate], stopWhen: hasToolCall('calculate') });
    const result = await agent.run('2*3?');
    expect(result.finishReason).toBe('stop-condition');
    expect(model.requests).toHaveLength(1);
    expect(result.messages.at(-1)).toMatchObject({ role: 'tool' });
    expect(result.steps[0]!.toolResults[0]).toMatchObject({ isError: false });
  });

  it('counts steps with stepCountIs, and checks each condition of a list', async () => {
    const turn = { toolCalls: [{ name: 'calculate', arguments: { a: 1, b: 1, op: '+' } }] };
    const model = createScriptedModel([turn, turn, turn, { text: 'never' }]);
    const agent = createAgent({
      model,
      tools: [calculate],
      stopWhen: [hasToolCall('get_weather'), stepCountIs(2)],
    });
    const result = await agent.run('again and again');
    expect(result.finishReason).toBe('stop-condition');
    expect(model.requests).toHaveLength(2);
    expect(() => stepCountIs(0)).toThrow(RangeError);
  });
});

describe('guardrails', () => {
  it('refuses a call before it runs and rewrites a result before the model reads it, telling the model', async () => {
    const deleted: string[] = [];
    const model = createScriptedModel([
      {
        toolCalls: [
          { id: 'd1', name: 'delete_file', arguments: { path: '/etc/passwd' } },
          { id: 'w1', name: 'get_weather', arguments: { city: 'Oslo' } },
        ],
      },
      { text: 'done' },
    ]);
    const events: AgentEvent[] = [];
    const agent = createAgent({
      model,
      tools: [deleteTool(deleted), weather],
      guardrails: {
        input: [
          {
            name: 'no-system-files',
            tools: ['delete_file'],
            check: ({ arguments: args }) =>
              String(args.path).startsWith('/etc/')
                ? { action: 'refuse', message: 'system files are off limits' }
                : { action: 'allow' },
          },
        ],
        output: [
          {
            name: 'redact-city',
            check: ({ result }) =>
              toolResultText(result).includes('Oslo')
                ? {
                    action: 'replace',
                    result: 'Sunny, 21 C in [city]',
                    message: 'city names are redacted',
                  }
                : { action: 'allow' },
          },
        ],
      },
    });
    for await (const event of agent.stream('clean up and check the weather')) events.push(event);
    expect(deleted).toEqual([]);
    const [refused, rewritten] = toolMessage(model.requests[1]);
    expect(refused).toMatchObject({ isError: true, error: { category: 'permissionDenied' } });
    expect(toolResultText(refused!)).toContain(
      'Guardrail "no-system-files" refused this call of "delete_file": system files are off limits',
    );
    expect(toolResultText(rewritten!)).toBe(
      '[Guardrail "redact-city" changed this result: city names are redacted]\nSunny, 21 C in [city]',
    );
    const finish = events.at(-1) as Extract<AgentEvent, { type: 'finish' }>;
    expect(finish.result.steps[0]!.guardrails).toEqual([
      expect.objectContaining({ guardrail: 'no-system-files', stage: 'input', action: 'refuse' }),
      expect.objectContaining({ guardrail: 'redact-city', stage: 'output', action: 'replace' }),
    ]);
    expect(events.filter((event) => event.type === 'guardrail')).toHaveLength(2);
    const results = events.filter((event) => event.type === 'tool-result');
    expect(results.map((event) => toolResultText(event.result))).toContain(
      toolResultText(rewritten!),
    );
  });
});

describe('provider-run tools', () => {
  const approvalTurn = {
    text: '',
    finishReason: 'tool-calls' as const,
    providerToolCalls: [
      {
        id: 'mcpr_1',
        name: 'ask_question',
        server: 'deepwiki',
        arguments: '{"question":"Which transports?"}',
        approvalRequestId: 'mcpr_1',
      },
    ],
  };

  it('asks the approve hook about a provider approval and sends the answer back', async () => {
    const model = createScriptedModel([approvalTurn, { text: 'stdio and Streamable HTTP' }]);
    const asked: unknown[] = [];
    const events: AgentEvent[] = [];
    const agent = createAgent({
      model,
      mcpServers: [{ name: 'deepwiki', url: 'https://mcp.deepwiki.com/mcp' }],
      approve: (request) => {
        asked.push({
          name: request.toolCall.name,
          provider: request.provider,
          args: request.arguments,
        });
        return { approved: true };
      },
    });
    for await (const event of agent.stream('Which transports does MCP define?')) events.push(event);
    expect(asked).toEqual([
      {
        name: 'ask_question',
        provider: { server: 'deepwiki' },
        args: { question: 'Which transports?' },
      },
    ]);
    expect(model.requests[0]!.mcpServers).toEqual([
      { name: 'deepwiki', url: 'https://mcp.deepwiki.com/mcp' },
    ]);
    expect(model.requests[1]!.messages.at(-1)).toEqual({
      role: 'tool',
      results: [],
      approvals: [{ approvalRequestId: 'mcpr_1', approved: true }],
    });
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['provider-tool-call', 'approval-request', 'approval-response']),
    );
  });

  it('refuses a provider approval when nobody can answer it', async () => {
    const model = createScriptedModel([approvalTurn, { text: 'could not ask' }]);
    await createAgent({ model }).run('Which transports?');
    expect(model.requests[1]!.messages.at(-1)).toEqual({
      role: 'tool',
      results: [],
      approvals: [
        { approvalRequestId: 'mcpr_1', approved: false, reason: 'no approval hook is set' },
      ],
    });
  });
});

describe('pauseForApproval and resume', () => {
  it('pauses before running any call of the step, and resumes from JSON without repeating one', async () => {
    const deleted: string[] = [];
    const computed: number[] = [];
    const counting = {
      ...calculate,
      execute: (args: Record<string, unknown>) => {
        computed.push(1);
        return calculate.execute!(args as never, undefined as never);
      },
    };
    const first = createScriptedModel([
      {
        toolCalls: [
          { id: 'c1', name: 'calculate', arguments: { a: 1, b: 2, op: '+' } },
          { id: 'd1', name: 'delete_file', arguments: { path: 'a.txt' } },
          { id: 'd2', name: 'delete_file', arguments: { path: 'b.txt' } },
        ],
      },
    ]);
    const options = { tools: [counting, deleteTool(deleted)], pauseForApproval: true };
    const paused = await createAgent({ model: first, ...options }).run('tidy up');
    expect(paused.finishReason).toBe('needs-approval');
    expect(paused.pendingApprovals).toEqual([
      { id: 'd1', kind: 'tool', toolName: 'delete_file', arguments: { path: 'a.txt' } },
      { id: 'd2', kind: 'tool', toolName: 'delete_file', arguments: { path: 'b.txt' } },
    ]);
    expect(deleted).toEqual([]);
    expect(computed).toEqual([]);
    const state = JSON.parse(JSON.stringify(paused.state));

    const second = createScriptedModel([{ text: 'Deleted a.txt, kept b.txt; 1+2=3.' }]);
    const resumed = await createAgent({ model: second, ...options }).resume(state, {
      d1: true,
      d2: { approved: false, reason: 'keep it' },
    });
    expect(resumed.text).toBe('Deleted a.txt, kept b.txt; 1+2=3.');
    expect(deleted).toEqual(['a.txt']);
    expect(computed).toEqual([1]);
    expect(resumed.steps.map((step) => step.index)).toEqual([1, 2]);
    expect(resumed.steps[0]!.approvals).toEqual([
      { toolCallId: 'd1', toolName: 'delete_file', approved: true, reason: null },
      { toolCallId: 'd2', toolName: 'delete_file', approved: false, reason: 'keep it' },
    ]);
    const results = toolMessage(second.requests[0]);
    expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([
      ['c1', false],
      ['d1', false],
      ['d2', true],
    ]);
    expect(resumed.transcript.input).toEqual([{ role: 'user', content: 'tidy up' }]);
    expect(resumed.transcript.startedAt).toBe(paused.transcript.startedAt);
    expect(resumed.usage.totalTokens).toBe(30);
  });

  it('pauses for a provider approval and answers it on resume', async () => {
    const first = createScriptedModel([
      {
        providerToolCalls: [
          {
            id: 'mcpr_9',
            name: 'ask_question',
            server: 'deepwiki',
            arguments: '{}',
            approvalRequestId: 'mcpr_9',
          },
        ],
        finishReason: 'tool-calls',
      },
    ]);
    const paused = await createAgent({ model: first, pauseForApproval: true }).run('ask');
    expect(paused.pendingApprovals).toEqual([
      {
        id: 'mcpr_9',
        kind: 'provider',
        toolName: 'ask_question',
        arguments: '{}',
        server: 'deepwiki',
      },
    ]);
    const second = createScriptedModel([{ text: 'answered' }]);
    const events: AgentEvent[] = [];
    for await (const event of createAgent({ model: second, pauseForApproval: true }).resumeStream(
      paused.state!,
      { mcpr_9: false },
    ))
      events.push(event);
    expect(events.map((event) => event.type)).toEqual([
      'approval-response',
      'step-finish',
      'step-start',
      'text-delta',
      'text-delta',
      'step-finish',
      'finish',
    ]);
    expect(second.requests[0]!.messages.at(-1)).toEqual({
      role: 'tool',
      results: [],
      approvals: [{ approvalRequestId: 'mcpr_9', approved: false }],
    });
  });

  it('says what is wrong with a bad state or a missing decision', async () => {
    const agent = createAgent({ model: createScriptedModel([]), pauseForApproval: true });
    await expect(agent.resume({ nope: true } as never, {})).rejects.toMatchObject({
      name: 'InvalidAgentOptionsError',
      field: 'state',
    });
    const first = createScriptedModel([
      { toolCalls: [{ id: 'd1', name: 'delete_file', arguments: { path: 'x' } }] },
    ]);
    const paused = await createAgent({
      model: first,
      tools: [deleteTool()],
      pauseForApproval: true,
    }).run('go');
    await expect(
      createAgent({
        model: createScriptedModel([]),
        tools: [deleteTool()],
        pauseForApproval: true,
      }).resume(paused.state!, {}),
    ).rejects.toMatchObject({ name: 'InvalidAgentOptionsError', field: 'decisions.d1' });
    expect(() => createAgent({ model: first, mode: 'staged', pauseForApproval: true })).toThrow(
      /pauseForApproval works in the tool loop/,
    );
  });
});
