// Deferred tools through the agent and a real adapter (OpenAI Chat Completions, emulated search)
// against the fake provider: the tool is found, called and run; the prompt prefix stays the same.
import { createOpenAI } from '@toolwire/openai';
import { defineTool } from '@toolwire/schema';
import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { calculate } from './test-tools.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ provider: 'openai' });
});
afterAll(() => fake.close());

describe('createAgent with deferred tools', () => {
  it('finds a deferred tool, runs it, and keeps every request a prefix of the next', async () => {
    const sent: string[] = [];
    const email = defineTool({
      name: 'send_email',
      description: 'Send an email to a person',
      inputSchema: {
        type: 'object',
        properties: { to: { type: 'string' }, subject: { type: 'string' } },
        required: ['to', 'subject'],
      },
      deferred: true,
      execute: ({ to }) => {
        sent.push(String(to));
        return 'sent';
      },
    });
    fake.push(
      { toolCalls: [{ id: 'call_s', name: 'search_tools', arguments: { query: 'email' } }] },
      {
        toolCalls: [
          {
            id: 'call_e',
            name: 'call_tool',
            arguments: { name: 'send_email', arguments: '{"to":"ada","subject":"Rain"}' },
          },
        ],
      },
      { text: 'Sent.' },
      { text: 'You are welcome.' },
    );
    const agent = createAgent({
      model: createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'k' })('gpt-test'),
      tools: [calculate, email],
    });
    const first = await agent.run('Email Ada that it rains.');
    expect(first.text).toBe('Sent.');
    expect(sent).toEqual(['ada']);
    expect(first.steps[0]!.providerToolCalls).toEqual([
      expect.objectContaining({ name: 'search_tools' }),
    ]);
    await agent.run([...first.messages, { role: 'user', content: 'Thanks!' }]);
    const bodies = fake.requests.map(
      (request) => request.body as { tools: unknown; messages: unknown[] },
    );
    expect(bodies).toHaveLength(4);
    expect(bodies[0]!.tools).toEqual(bodies[3]!.tools);
    for (let i = 1; i < bodies.length; i++)
      expect(bodies[i]!.messages.slice(0, bodies[i - 1]!.messages.length)).toEqual(
        bodies[i - 1]!.messages,
      );
    expect(JSON.stringify(bodies[0]!.tools)).not.toContain('send_email');
  });
});
