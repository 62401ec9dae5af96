// Whether the agent's model calls go out as streaming requests, seen on the wire: the real OpenAI
// adapter (the `openai` SDK over HTTP) against the fake provider server.
import { createOpenAI } from '@toolwire/openai';
import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { calculate } from './test-tools.js';
import { createAgent, type AgentEvent } from '../src/index.js';

let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider({ provider: 'openai' });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  fake.push(
    { toolCalls: [{ id: 'call_1', name: 'calculate', arguments: { a: 2, b: 3, op: '+' } }] },
    { text: 'It is 5.' },
  );
});

const agent = () =>
  createAgent({
    model: createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'test-key' })('gpt-test'),
    tools: [calculate],
  });

const streamFlags = () =>
  fake.requests.map((request) => (request.body as { stream?: boolean }).stream ?? false);

describe('createAgent', () => {
  it('sends non-streaming requests from run(), where nothing is streamed to the caller', async () => {
    const result = await agent().run('What is 2+3?');
    expect(result.text).toBe('It is 5.');
    expect(result.steps[0]!.toolResults[0]).toMatchObject({ isError: false });
    expect(streamFlags()).toEqual([false, false]);
  });

  it('sends streaming requests from stream(), and the text arrives in deltas', async () => {
    const events: AgentEvent[] = [];
    for await (const event of agent().stream('What is 2+3?')) events.push(event);
    expect(streamFlags()).toEqual([true, true]);
    const deltas = events.flatMap((e) => (e.type === 'text-delta' ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('It is 5.');
    expect(events.at(-1)).toMatchObject({ type: 'finish', result: { text: 'It is 5.' } });
  });

  it('passes the tool-call input on as it streams: a start, then argument deltas that add up to the call', async () => {
    const events: AgentEvent[] = [];
    for await (const event of agent().stream('What is 2+3?')) events.push(event);
    const start = events.findIndex((event) => event.type === 'tool-call-start');
    const call = events.findIndex((event) => event.type === 'tool-call');
    expect(events[start]).toEqual({
      type: 'tool-call-start',
      step: 1,
      id: 'call_1',
      name: 'calculate',
    });
    const deltas = events.flatMap((event) =>
      event.type === 'tool-call-delta' && event.id === 'call_1' ? [event.argumentsDelta] : [],
    );
    expect(deltas.length).toBeGreaterThan(1);
    expect(JSON.parse(deltas.join(''))).toEqual({ a: 2, b: 3, op: '+' });
    expect(start).toBeLessThan(call);
    expect(events.findLastIndex((event) => event.type === 'tool-call-delta')).toBeLessThan(call);
  });
});
