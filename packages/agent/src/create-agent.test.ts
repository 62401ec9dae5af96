import { defineTool, type AnyTool, type ChatModel } from '@toolwire/schema';
import { describe, expect, it } from 'vitest';
import { createScriptedModel } from '../test/scripted-chat-model.js';
import { calculate, weather } from '../test/test-tools.js';
import {
  createAgent,
  InvalidAgentOptionsError,
  type AgentEvent,
  type AgentOptions,
  type ToolListMode,
} from './index.js';

const executeCode = defineTool({
  name: 'execute_code',
  description: 'Run TypeScript that calls the tools as functions',
  inputSchema: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
  execute: ({ code }) => `ran ${String(code).length} chars`,
});

describe('createAgent (options)', () => {
  const model = createScriptedModel([]);
  const cases: Array<[string, Partial<AgentOptions>, string]> = [
    [
      'model',
      { model: {} as ChatModel },
      'model must be a ChatModel (an object with generate() and stream())',
    ],
    [
      'mode',
      { mode: 'fast' as never },
      'mode must be one of "direct", "code", "gateway", "staged" (got "fast")',
    ],
    ['maxSteps', { maxSteps: 0 }, 'maxSteps must be an integer >= 1 (got 0)'],
    ['concurrency', { concurrency: 1.5 }, 'concurrency must be an integer >= 1 (got 1.5)'],
    ['toolTimeoutMs', { toolTimeoutMs: -1 }, 'toolTimeoutMs must be a number > 0 (got -1)'],
    ['maxRetries', { maxRetries: -1 }, 'maxRetries must be an integer >= 0 (got -1)'],
    ['retryDelayMs', { retryDelayMs: Number.NaN }, 'retryDelayMs must be a number >= 0 (got null)'],
    ['approve', { approve: 'yes' as never }, 'approve must be a function (got string)'],
    [
      'tools',
      { tools: {} as never },
      'tools must be an array of tools or a function returning one',
    ],
    ['system', { system: 3 as never }, 'system must be a string (got number)'],
  ];
  for (const [field, options, message] of cases) {
    it(`rejects a bad ${field} with an error naming it`, () => {
      let caught: unknown;
      try {
        createAgent({ model, ...options });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InvalidAgentOptionsError);
      expect((caught as InvalidAgentOptionsError).field).toBe(field);
      expect((caught as Error).message).toBe(message);
    });
  }

  it('rejects empty input and messages with an unknown role', async () => {
    const agent = createAgent({ model: createScriptedModel([]) });
    await expect(agent.run('  ')).rejects.toThrow('input must be a non-empty prompt');
    await expect(agent.run([])).rejects.toThrow('input must be a non-empty prompt');
    await expect(
      agent.run([{ role: 'user', content: 'a' }, { role: 'robot', content: 'b' } as never]),
    ).rejects.toMatchObject({ field: 'input[1].role' });
  });

  it('rejects two tools with the same name', async () => {
    const agent = createAgent({ model: createScriptedModel([]), tools: [weather, weather] });
    await expect(agent.run('x')).rejects.toMatchObject({
      field: 'tools[1].name',
      message: 'tools[1].name: two tools are named "get_weather"; tool names must be unique',
    });
  });
});

describe('createAgent (modes)', () => {
  function provider(lists: Record<ToolListMode, AnyTool[]>, asked: ToolListMode[]) {
    return ({ mode }: { mode: ToolListMode }) => {
      asked.push(mode);
      return lists[mode];
    };
  }
  const gatewayTool = defineTool({
    name: 'fs',
    description: 'Gateway to the fs server: action list or execute',
    inputSchema: {
      type: 'object',
      properties: { action: { type: 'string', enum: ['list', 'execute'] } },
      required: ['action'],
    },
    execute: ({ action }) => (action === 'list' ? ['read_file'] : 'executed'),
  });
  const lists = {
    direct: [calculate, weather],
    code: [executeCode, weather],
    gateway: [gatewayTool],
  };

  for (const [mode, listMode, names] of [
    ['direct', 'direct', ['calculate', 'get_weather']],
    ['code', 'code', ['execute_code', 'get_weather']],
    ['gateway', 'gateway', ['fs']],
  ] as const) {
    it(`exposes the ${listMode} tool list in ${mode} mode`, async () => {
      const asked: ToolListMode[] = [];
      const model = createScriptedModel([{ text: 'ok' }]);
      await createAgent({ model, mode, tools: provider(lists, asked) }).run('x');
      expect(asked).toEqual([listMode]);
      expect(model.requests[0]!.tools!.map((t) => t.name)).toEqual(names);
    });
  }

  it('asks the provider for the direct list in staged mode', async () => {
    const asked: ToolListMode[] = [];
    const model = createScriptedModel([
      { text: '{"reasoning":"","selected_tools":[]}' },
      { text: 'ok' },
    ]);
    const result = await createAgent({ model, mode: 'staged', tools: provider(lists, asked) }).run(
      'x',
    );
    expect(asked).toEqual(['direct']);
    expect(result.steps[0]!.stageTools).toEqual(['calculate', 'get_weather']);
  });

  it('asks the provider again on every run, so a changed tool list is used', async () => {
    let version = 0;
    const model = createScriptedModel([{ text: 'a' }, { text: 'b' }]);
    const agent = createAgent({
      model,
      tools: () => (++version === 1 ? [calculate] : [calculate, weather]),
    });
    await agent.run('x');
    await agent.run('y');
    expect(model.requests.map((r) => r.tools!.length)).toEqual([1, 2]);
  });

  it('runs execute_code like any tool in code mode', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'execute_code', arguments: { code: 'return 1' } }] },
      { text: 'done' },
    ]);
    const result = await createAgent({ model, mode: 'code', tools: [executeCode] }).run('x');
    expect(result.steps[0]!.toolResults[0]!.content).toEqual([
      { type: 'text', text: 'ran 8 chars' },
    ]);
  });

  it('refuses code mode without an execute_code tool', async () => {
    const agent = createAgent({ model: createScriptedModel([]), mode: 'code', tools: [weather] });
    await expect(agent.run('x')).rejects.toThrow('mode "code" needs a tool named "execute_code"');
  });
});

describe('createAgent (stream and transcript)', () => {
  it('streams step, text, tool and finish events in order', async () => {
    const model = createScriptedModel([
      {
        text: 'Let me check',
        toolCalls: [{ id: 'w', name: 'get_weather', arguments: { city: 'Oslo' } }],
      },
      { text: 'Sunny' },
    ]);
    const events: AgentEvent[] = [];
    for await (const event of createAgent({ model, tools: [weather] }).stream('weather?'))
      events.push(event);
    expect(
      events.map((e) =>
        e.type === 'step-start' || e.type === 'text-delta' ? `${e.type}:${e.step}` : e.type,
      ),
    ).toEqual([
      'step-start:1',
      'text-delta:1',
      'text-delta:1',
      'text-delta:1',
      'tool-call',
      'tool-result',
      'step-finish',
      'step-start:2',
      'text-delta:2',
      'text-delta:2',
      'step-finish',
      'finish',
    ]);
    const finish = events.at(-1)!;
    expect(finish.type === 'finish' && finish.result.text).toBe('Sunny');
  });

  it('streams approval requests and responses', async () => {
    const { deleteTool } = await import('../test/test-tools.js');
    const model = createScriptedModel([
      { toolCalls: [{ id: 'd', name: 'delete_file', arguments: { path: 'x' } }] },
      { text: 'ok' },
    ]);
    const types: string[] = [];
    for await (const event of createAgent({
      model,
      tools: [deleteTool()],
      approve: () => true,
    }).stream('x'))
      types.push(event.type);
    expect(types.slice(0, 6)).toEqual([
      'step-start',
      'tool-call',
      'approval-request',
      'approval-response',
      'tool-result',
      'step-finish',
    ]);
  });

  it('forwards adapter warnings as events and keeps them in the step', async () => {
    const warning = { type: 'schema-changed' as const, message: 'made optional fields nullable' };
    const model = createScriptedModel([{ text: 'ok', warnings: [warning] }]);
    const events: AgentEvent[] = [];
    const agent = createAgent({ model });
    for await (const event of agent.stream('x')) events.push(event);
    expect(events.find((e) => e.type === 'warning')).toEqual({ type: 'warning', step: 1, warning });
    const finish = events.at(-1)!;
    expect(finish.type === 'finish' && finish.result.steps[0]!.warnings).toEqual([warning]);
  });

  it('produces a JSON-serialisable transcript with every key present', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'c', name: 'calculate', arguments: '{"a":1,"b":2,"op":"+"}' }] },
      { text: '3' },
    ]);
    const result = await createAgent({ model, tools: [calculate], system: 'Sys' }).run('1+2');
    const json = JSON.parse(JSON.stringify(result.transcript));
    expect(Object.keys(json)).toEqual([
      'version',
      'mode',
      'provider',
      'modelId',
      'startedAt',
      'durationMs',
      'system',
      'input',
      'inputRepairs',
      'steps',
      'text',
      'finishReason',
      'usage',
    ]);
    expect(json).toMatchObject({
      version: 1,
      mode: 'direct',
      provider: 'scripted',
      modelId: 'scripted-1',
      system: 'Sys',
      input: [{ role: 'user', content: '1+2' }],
      inputRepairs: [],
      text: '3',
      finishReason: 'stop',
    });
    expect(Object.keys(json.steps[0])).toEqual([
      'index',
      'kind',
      'startedAt',
      'durationMs',
      'request',
      'response',
      'stageTools',
      'toolCalls',
      'toolResults',
      'approvals',
      'repairs',
      'guardrails',
      'providerToolCalls',
      'retries',
      'usage',
      'warnings',
      'fallback',
      'error',
    ]);
    expect(json.steps[0].toolCalls).toEqual([
      { id: 'c', name: 'calculate', arguments: '{"a":1,"b":2,"op":"+"}' },
    ]);
    expect(json.steps[0].toolResults[0]).toMatchObject({ toolCallId: 'c', isError: false });
    expect(typeof json.steps[0].toolResults[0].durationMs).toBe('number');
    expect(json.steps[1].response).toMatchObject({
      text: '3',
      finishReason: 'stop',
      modelId: 'scripted-1',
    });
    expect(new Date(json.startedAt).toISOString()).toBe(json.startedAt);
  });

  it('repairs an input transcript with a call that has no result before sending it', async () => {
    const model = createScriptedModel([{ text: 'ok' }]);
    const result = await createAgent({ model, tools: [weather] }).run([
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'lost', name: 'get_weather', arguments: { city: 'Oslo' } }],
      },
      { role: 'user', content: 'never mind, say ok' },
    ]);
    expect(result.transcript.inputRepairs).toEqual([
      'added a cancelled result for "lost" (get_weather)',
    ]);
    const sent = model.requests[0]!.messages;
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(sent[2]).toMatchObject({
      results: [{ toolCallId: 'lost', error: { category: 'cancelled' } }],
    });
  });
});
