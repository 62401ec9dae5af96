/* eslint-disable @typescript-eslint/no-explicit-any -- tests read recorded request bodies */
// Clients that bring their own tools to the gateway's OpenAI-compatible endpoints: the official
// `openai` SDK (Chat Completions and Responses, plain and streamed) and the AI SDK (`ai` with
// `@ai-sdk/openai`, both APIs). The model gets the gateway's tools and the client's; the gateway
// runs its own, returns the client's calls, and continues when the client sends their outputs
// (the whole conversation, `previous_response_id`, or items sent back).
import { createOpenAI } from '@ai-sdk/openai';
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, waitFor, type TestGateway } from './helpers.js';

const TOKEN = 'client-tools-token-0123456789';
const OTHER = 'client-tools-other-token-0123456789';

const WEATHER_CHAT = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather in a city, from the client.',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    },
  },
};
const WEATHER_RESPONSES = { type: 'function' as const, strict: false, ...WEATHER_CHAT.function };

/** One step where the model calls the gateway's tool and the client's, then its answer. */
function mixedTurns(answer: string) {
  return [
    {
      toolCalls: [
        { name: 'fx__add', arguments: { a: 19, b: 23 } },
        { name: 'get_weather', arguments: { city: 'Paris' } },
      ],
    },
    { text: answer },
  ];
}

/** The messages (Chat Completions upstream) of one recorded model request, as JSON text. */
const sent = (fake: FakeProvider, index: number): string =>
  JSON.stringify(fake.requests.filter((r) => r.method === 'POST')[index]!.body.messages);

/** The gateway's `fx__add` result (19 + 23) as the upstream model got it back. */
const SUM_RESULT = /"role":"tool","tool_call_id":"[^"]+","content":"42"/;

describe('client tools on /v1', () => {
  let fake: FakeProvider;
  let gw: TestGateway;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeProvider({ provider: 'openai' });
    gw = await startGateway({
      nativeTools: ['calculate'],
      mcpServers: { fx: fixtureStdioConfig({ tools: ['echo', 'add'] }) },
      auth: {
        tokens: [
          { token: TOKEN, client: 'app', allow: ['*'] },
          { token: OTHER, client: 'other-app', allow: ['*'] },
        ],
      },
      chat: { provider: 'openai', baseUrl: `${fake.url}/v1`, apiKey: 'k', model: 'fake-model' },
    });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  describe('the openai SDK, Chat Completions', () => {
    it("runs the gateway's call, returns the client's, and picks up where it stopped", async () => {
      fake.push(...mixedTurns('Sunny in Paris; 19 + 23 = 42.'));
      const messages: OpenAI.ChatCompletionMessageParam[] = [
        { role: 'user', content: 'Weather in Paris, and 19 + 23?' },
      ];
      const first = await client.chat.completions.create({
        model: 'fake-model',
        messages,
        tools: [WEATHER_CHAT],
      });
      const choice = first.choices[0]!;
      expect(choice.finish_reason).toBe('tool_calls');
      // Only the client's call comes back; the gateway's ran in the gateway.
      expect(choice.message.tool_calls).toEqual([
        {
          id: expect.any(String),
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
        },
      ]);
      expect((first as any).toolwire.toolCalls).toEqual([{ name: 'fx__add', isError: false }]);
      await waitFor(
        () =>
          gw.logs.find(
            (l) => l.event === 'tool_call' && l.tool === 'fx__add' && l.client === 'app',
          ),
        'the gateway-side call',
      );
      // The model saw both kinds of tools.
      const offered = fake.requests[0]!.body.tools.map((t: any) => t.function.name);
      expect(offered).toEqual(expect.arrayContaining(['fx__add', 'calculate', 'get_weather']));

      const call = choice.message.tool_calls![0]!;
      const second = await client.chat.completions.create({
        model: 'fake-model',
        messages: [
          ...messages,
          choice.message,
          { role: 'tool', tool_call_id: call.id, content: 'sunny, 24 °C' },
        ],
        tools: [WEATHER_CHAT],
      });
      expect(second.choices[0]!.message.content).toBe('Sunny in Paris; 19 + 23 = 42.');
      expect(second.choices[0]!.finish_reason).toBe('stop');
      // The model's next request has the whole step back: both calls, and both results.
      const next = sent(fake, 1);
      expect(next).toContain('fx__add');
      expect(next).toMatch(SUM_RESULT);
      expect(next).toContain('sunny, 24 °C');
    });

    it('streams the client calls as tool_calls deltas', async () => {
      fake.push({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] });
      const stream = await client.chat.completions.create({
        model: 'fake-model',
        stream: true,
        messages: [{ role: 'user', content: 'Rome?' }],
        tools: [WEATHER_CHAT],
      });
      const calls: any[] = [];
      let finish: string | null = null;
      for await (const chunk of stream) {
        for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) calls[delta.index] = delta;
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(finish).toBe('tool_calls');
      expect(calls).toEqual([
        {
          index: 0,
          id: expect.any(String),
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
        },
      ]);
    });

    it('refuses what it cannot do, naming the field', async () => {
      await expect(
        client.chat.completions.create({
          model: 'fake-model',
          messages: [{ role: 'user', content: 'x' }],
          tools: [{ type: 'function', function: { name: 'fx__add' } }],
        }),
      ).rejects.toMatchObject({
        status: 400,
        message: expect.stringMatching(
          /tools\[0\]\.function\.name: "fx__add" is one of the gateway's own tools/,
        ),
      });
      await expect(
        client.chat.completions.create({
          model: 'fake-model',
          messages: [
            { role: 'user', content: 'x' },
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
              ],
            },
          ],
          tools: [WEATHER_CHAT],
        }),
      ).rejects.toMatchObject({
        status: 400,
        message: expect.stringMatching(/"c1" \(get_weather\) has no output/),
      });
      expect(fake.requests).toHaveLength(0);
    });
  });

  describe('the openai SDK, Responses', () => {
    it('lists the gateway call as an mcp_call and the client call as a function_call; previous_response_id continues', async () => {
      fake.push(...mixedTurns('Sunny in Paris; the sum is 42.'));
      const first = await client.responses.create({
        model: 'fake-model',
        input: 'Weather in Paris, and 19 + 23?',
        tools: [WEATHER_RESPONSES],
      });
      expect(first.status).toBe('completed');
      expect((first as any).store).toBe(true);
      const [mcp, fn] = first.output as any[];
      expect(mcp).toMatchObject({
        type: 'mcp_call',
        server_label: 'toolwire',
        name: 'fx__add',
        arguments: '{"a":19,"b":23}',
        status: 'completed',
        error: null,
      });
      expect(mcp.output).toContain('42');
      expect(fn).toMatchObject({
        type: 'function_call',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
        call_id: expect.any(String),
      });
      expect(first.output).toHaveLength(2);

      const second = await client.responses.create({
        model: 'fake-model',
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: fn.call_id, output: 'sunny, 24 °C' }],
        tools: [WEATHER_RESPONSES],
      });
      expect(second.output_text).toBe('Sunny in Paris; the sum is 42.');
      expect(second.previous_response_id).toBe(first.id);
      const next = sent(fake, 1);
      expect(next).toContain('Weather in Paris');
      expect(next).toMatch(SUM_RESULT);
      expect(next).toContain('sunny, 24 °C');

      // Another client's token does not find it: the same answer as for an unknown id.
      const other = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: OTHER, maxRetries: 0 });
      await expect(
        other.responses.create({
          model: 'fake-model',
          previous_response_id: first.id,
          input: [{ type: 'function_call_output', call_id: fn.call_id, output: 'x' }],
        }),
      ).rejects.toMatchObject({
        status: 400,
        code: 'previous_response_not_found',
        param: 'previous_response_id',
      });
    });

    it('keeps nothing with store: false; the output items sent back carry the conversation', async () => {
      fake.push(...mixedTurns('Done.'));
      const input: any[] = [{ role: 'user', content: 'Weather in Paris, and 19 + 23?' }];
      const first = await client.responses.create({
        model: 'fake-model',
        store: false,
        input,
        tools: [WEATHER_RESPONSES],
      });
      expect((first as any).store).toBe(false);
      const fn = (first.output as any[]).find((item) => item.type === 'function_call');
      await expect(
        client.responses.create({
          model: 'fake-model',
          previous_response_id: first.id,
          input: 'again',
        }),
      ).rejects.toMatchObject({ status: 400, code: 'previous_response_not_found' });
      const second = await client.responses.create({
        model: 'fake-model',
        store: false,
        input: [
          ...input,
          ...first.output,
          { type: 'function_call_output', call_id: fn.call_id, output: 'rainy' },
        ] as any,
        tools: [WEATHER_RESPONSES],
      });
      expect(second.output_text).toBe('Done.');
      const next = sent(fake, 1);
      expect(next).toMatch(SUM_RESULT);
      expect(next).toContain('rainy');
    });

    it('streams mcp_call and function_call items with the ids of the final response', async () => {
      fake.push({
        toolCalls: [
          { name: 'fx__add', arguments: { a: 1, b: 2 } },
          { name: 'get_weather', arguments: { city: 'Oslo' } },
        ],
      });
      const stream = await client.responses.create({
        model: 'fake-model',
        input: 'Oslo, and 1 + 2?',
        tools: [WEATHER_RESPONSES],
        stream: true,
      });
      const added: any[] = [];
      const done: any[] = [];
      let completed: any;
      let argumentsDone: any;
      for await (const event of stream) {
        if (event.type === 'response.output_item.added') added.push(event.item);
        if (event.type === 'response.output_item.done') done.push(event.item);
        if (event.type === 'response.function_call_arguments.done') argumentsDone = event;
        if (event.type === 'response.completed') completed = event.response;
      }
      // Added in the model's order; the gateway's call is done once its result is in.
      expect(added.map((item) => item.type)).toEqual(['mcp_call', 'function_call']);
      expect(added[0].status).toBe('in_progress');
      expect(done.map((item) => item.type).sort()).toEqual(['function_call', 'mcp_call']);
      expect(argumentsDone.arguments).toBe('{"city":"Oslo"}');
      expect(completed.output.map((item: any) => item.id)).toEqual(added.map((item) => item.id));
      expect(completed.output[0].output).toContain('3');
    });
  });

  describe('the AI SDK', () => {
    const weather = tool({
      description: 'The weather in a city, from the client.',
      inputSchema: jsonSchema<{ city: string }>({
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      }),
      execute: async ({ city }) => `sunny in ${city}`,
    });

    for (const api of ['chat', 'responses'] as const) {
      it(`runs its own tool and the gateway's in one generateText loop (${api})`, async () => {
        fake.push(...mixedTurns('Sunny in Paris, and 42.'));
        const bodies: any[] = [];
        const openai = createOpenAI({
          baseURL: `${gw.url}/v1`,
          apiKey: TOKEN,
          fetch: (input, init) => {
            bodies.push(JSON.parse(String(init?.body)));
            return fetch(input, init);
          },
        });
        const result = await generateText({
          model: api === 'chat' ? openai.chat('fake-model') : openai.responses('fake-model'),
          tools: { get_weather: weather },
          stopWhen: stepCountIs(4),
          prompt: 'Weather in Paris, and 19 + 23?',
        });
        expect(result.text).toBe('Sunny in Paris, and 42.');
        const next = sent(fake, 1);
        expect(next).toMatch(SUM_RESULT);
        expect(next).toContain('sunny in Paris');
        expect(fake.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
        // What the AI SDK sent back: Chat Completions only its own call (the gateway restores the
        // step's other call); Responses a reference to the gateway's call item.
        if (api === 'chat') expect(JSON.stringify(bodies[1])).not.toContain('fx__add');
        else
          expect(bodies[1].input).toContainEqual({
            type: 'item_reference',
            id: expect.stringMatching(/^mcp_/),
          });
      });

      it(`streams with streamText, its tool run in between (${api})`, async () => {
        fake.push(...mixedTurns('Streamed: sunny, 42.'));
        const openai = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: TOKEN });
        const result = streamText({
          model: api === 'chat' ? openai.chat('fake-model') : openai.responses('fake-model'),
          tools: { get_weather: weather },
          stopWhen: stepCountIs(4),
          prompt: 'Weather in Paris, and 19 + 23?',
        });
        expect(await result.text).toBe('Streamed: sunny, 42.');
        expect(sent(fake, 1)).toContain('sunny in Paris');
      });
    }
  });
});
