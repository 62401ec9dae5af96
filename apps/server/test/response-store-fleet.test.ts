/* eslint-disable @typescript-eslint/no-explicit-any -- tests read response items */
// Two gateways sharing one Redis: a response made on one is continued on the other, with
// `previous_response_id` (Responses) and with the gateway's hidden calls restored (Chat
// Completions), as a client behind a load balancer meets them.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, startRedis, type TestGateway } from './helpers.js';

const REDIS = spawnSync('redis-server', ['--version']).status === 0;
const WEATHER = {
  name: 'get_weather',
  description: 'The weather in a city, from the client.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe.skipIf(!REDIS)(
  `conversations across two gateways sharing one Redis${REDIS ? '' : ' (skipped: Debian package "redis-server" is not installed)'}`,
  () => {
    let redis: { url: string; process: ChildProcess };
    let fake: FakeProvider;
    let a: TestGateway;
    let b: TestGateway;
    const clientOf = (gw: TestGateway) =>
      new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'none', maxRetries: 0 });

    beforeAll(async () => {
      redis = await startRedis();
      fake = await startFakeProvider({ provider: 'openai' });
      const config = {
        nativeTools: ['calculate' as const],
        redis: redis.url,
        chat: { provider: 'openai' as const, baseUrl: `${fake.url}/v1`, apiKey: 'k', model: 'm' },
      };
      a = await startGateway(config);
      b = await startGateway(config);
    }, 60_000);
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await fake?.close();
      redis?.process.kill('SIGTERM');
    });
    beforeEach(() => fake.reset());

    it('continues on B a response made on A (previous_response_id)', async () => {
      fake.push(
        {
          toolCalls: [
            { name: 'calculate', arguments: { expression: '6 * 7' } },
            { name: 'get_weather', arguments: { city: 'Lima' } },
          ],
        },
        { text: 'Warm in Lima; 42.' },
      );
      const first = await clientOf(a).responses.create({
        model: 'm',
        input: 'Lima, and 6 * 7?',
        tools: [{ type: 'function', strict: false, ...WEATHER }],
      });
      const call = (first.output as any[]).find((item) => item.type === 'function_call');
      const second = await clientOf(b).responses.create({
        model: 'm',
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: call.call_id, output: 'warm' }],
      });
      expect(second.output_text).toBe('Warm in Lima; 42.');
      const next = JSON.stringify(fake.requests[1]!.body.messages);
      expect(next).toContain('Lima, and 6 * 7?');
      // The gateway's own call and its result, kept by A, read by B.
      expect(next).toContain('\\"result\\":42');
      expect(next).toContain('warm');
    });

    it("restores on B the gateway's own calls of a chat answered on A", async () => {
      fake.push(
        {
          toolCalls: [
            { name: 'calculate', arguments: { expression: '2 + 2' } },
            { name: 'get_weather', arguments: { city: 'Oslo' } },
          ],
        },
        { text: 'Cold in Oslo; 4.' },
      );
      const messages: OpenAI.ChatCompletionMessageParam[] = [
        { role: 'user', content: 'Oslo, and 2 + 2?' },
      ];
      const tools = [{ type: 'function' as const, function: WEATHER }];
      const first = await clientOf(a).chat.completions.create({ model: 'm', messages, tools });
      const message = first.choices[0]!.message;
      const second = await clientOf(b).chat.completions.create({
        model: 'm',
        tools,
        messages: [
          ...messages,
          message,
          { role: 'tool', tool_call_id: message.tool_calls![0]!.id, content: 'cold' },
        ],
      });
      expect(second.choices[0]!.message.content).toBe('Cold in Oslo; 4.');
      const next = JSON.stringify(fake.requests[1]!.body.messages);
      expect(next).toContain('calculate');
      expect(next).toContain('\\"result\\":4}');
    });
  },
);
