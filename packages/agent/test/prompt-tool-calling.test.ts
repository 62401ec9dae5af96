// Prompt-based tool calling through real adapters (their SDKs over HTTP) against the fake
// provider server: a model that turns tools down, and one configured without them.
import { createOllama } from '@toolwire/ollama';
import { createOpenAI } from '@toolwire/openai';
import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, type AgentResult } from '../src/index.js';
import { readPromptAnswer } from '../src/prompt-tool-calling.js';
import { calculate } from './test-tools.js';

let fake: FakeProvider | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const refusal = (model: string) => ({
  error: {
    status: 400,
    body: { error: `registry.ollama.ai/library/${model} does not support tools` },
  },
});
const jsonCall = (args: Record<string, unknown>) =>
  '```json\n' +
  JSON.stringify({
    tool_calls: [
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'calculate', arguments: JSON.stringify(args) },
      },
    ],
  }) +
  '\n```';

describe('createAgent with toolCalling', () => {
  it('"auto" falls back to tools in the prompt when Ollama says the model does not support tools', async () => {
    fake = await startFakeProvider({
      provider: 'ollama',
      turns: [
        refusal('gemma:2b'),
        { text: jsonCall({ a: 6, b: 7, op: '*' }) },
        { text: 'It is 42.' },
      ],
    });
    const agent = createAgent({
      model: createOllama({ host: fake.url })('gemma:2b'),
      tools: [calculate],
      system: 'Be brief.',
      toolCalling: 'auto',
      maxRetries: 0,
    });
    const events: string[] = [];
    let result: AgentResult | undefined;
    for await (const event of agent.stream('What is 6*7?')) {
      if (event.type === 'text-delta') events.push(event.delta);
      if (event.type === 'finish') result = event.result;
    }
    if (!result) throw new Error('no finish event');
    expect(result.text).toBe('It is 42.');
    // Only the answer reaches the user, never the JSON call.
    expect(events.join('')).toBe('It is 42.');
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests[0]!.body.tools).toHaveLength(1);
    const second = fake.requests[1]!.body;
    expect(second.tools).toBeUndefined();
    expect(second.messages[0].role).toBe('system');
    expect(second.messages[0].content).toContain('Be brief.');
    expect(second.messages[0].content).toContain('"name":"calculate"');
    expect(second.messages[0].content).toContain('{"tool_calls": [');
    // The result goes back as text the model can read.
    const third = fake.requests[2]!.body;
    expect(third.tools).toBeUndefined();
    expect(third.messages.at(-2)).toMatchObject({ role: 'assistant' });
    expect(third.messages.at(-2).content).toContain('"tool_calls"');
    expect(third.messages.at(-1).role).toBe('user');
    expect(third.messages.at(-1).content).toContain('42');
    expect(result.steps[0]!.warnings.map((warning) => warning.message).join('\n')).toMatch(
      /model "gemma:2b" does not support tool calling.*offered in the prompt/,
    );
    // The refused request and its prompt-based retry are one step.
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]!.toolResults[0]).toMatchObject({
      toolName: 'calculate',
      isError: false,
    });
    // The conversation keeps the canonical form.
    expect(result.messages[1]).toMatchObject({
      role: 'assistant',
      toolCalls: [{ id: 'call_1', name: 'calculate' }],
    });
  });

  it('"native" (the default) lets the refusal through', async () => {
    fake = await startFakeProvider({ provider: 'ollama', turns: [refusal('gemma:2b')] });
    const agent = createAgent({
      model: createOllama({ host: fake.url })('gemma:2b'),
      tools: [calculate],
      maxRetries: 0,
    });
    await expect(agent.run('What is 6*7?')).rejects.toMatchObject({
      name: 'UnsupportedFeatureError',
      feature: 'toolCalling',
    });
  });

  it('"prompt" never sends tools natively, sends bad arguments back as tool errors and repairs the JSON', async () => {
    fake = await startFakeProvider({
      provider: 'openai',
      turns: [
        // Arguments as an object and a trailing comma: repaired, then validated.
        {
          text: '{"tool_calls": [{"type": "function", "function": {"name": "calculate", "arguments": {"a": 2, "b": "x", "op": "+"}}},]}',
        },
        { text: jsonCall({ a: 2, b: 3, op: '+' }) },
        { text: 'Five.' },
      ],
    });
    const agent = createAgent({
      model: createOpenAI({
        baseURL: `${fake.url}/v1`,
        apiKey: 'k',
        provider: 'openai-compatible',
      })('local'),
      tools: [calculate],
      toolCalling: 'prompt',
      maxRetries: 0,
    });
    const result = await agent.run('2+3?');
    expect(result.text).toBe('Five.');
    expect(fake.requests.every((request) => request.body.tools === undefined)).toBe(true);
    expect(result.steps[0]!.toolResults[0]).toMatchObject({ isError: true });
    expect(result.steps[1]!.toolResults[0]).toMatchObject({ isError: false });
    expect(fake.requests[1]!.body.messages.at(-1).content).toContain('"error":true');
  });

  it('"prompt" tells the model when its call JSON cannot be used, and it tries again', async () => {
    fake = await startFakeProvider({
      provider: 'ollama',
      turns: [
        { text: '{"tool_calls": [{"function": {"arguments": "{}"}}]}' },
        { text: jsonCall({ a: 1, b: 1, op: '+' }) },
        { text: 'Two.' },
      ],
    });
    const agent = createAgent({
      model: createOllama({ host: fake.url })('tiny'),
      tools: [calculate],
      toolCalling: 'prompt',
    });
    const result = await agent.run('1+1?');
    expect(result.text).toBe('Two.');
    expect(fake.requests[1]!.body.messages.at(-1).content).toMatch(
      /Your function call could not be used: tool_calls\[0\]\.function\.name/,
    );
  });

  it('rejects an unknown toolCalling value', () => {
    expect(() =>
      createAgent({
        model: createOllama({ host: 'http://127.0.0.1:1' })('m'),
        toolCalling: 'sometimes' as never,
      }),
    ).toThrow(/toolCalling must be one of "native", "prompt", "auto"/);
  });
});

describe('readPromptAnswer', () => {
  it('reads prose that mentions tool_calls as the answer, and JSON calls as calls', () => {
    expect(readPromptAnswer('Use the tool_calls: field to call functions.')).toEqual({
      kind: 'text',
      text: 'Use the tool_calls: field to call functions.',
    });
    expect(
      readPromptAnswer('{"tool_calls":[{"function":{"name":"calculate","arguments":"{}"}}]}'),
    ).toMatchObject({ kind: 'calls', calls: [{ name: 'calculate', arguments: '{}' }] });
    expect(readPromptAnswer('{"tool_calls": "soon"}')).toMatchObject({ kind: 'invalid' });
  });
});
