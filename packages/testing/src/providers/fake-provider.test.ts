import { afterEach, describe, expect, it, vi } from 'vitest';
import { startFakeProvider, type FakeProvider } from './fake-provider.js';
import { wireFixture } from './wire-fixtures.js';

let fake: FakeProvider | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${fake!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function sseData(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)));
}

describe('startFakeProvider', () => {
  it('records the request and answers an OpenAI call as JSON', async () => {
    fake = await startFakeProvider({
      provider: 'openai',
      turns: [{ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] }],
    });
    const response = await post('/v1/chat/completions', { model: 'gpt-test', messages: [] });
    const json = (await response.json()) as {
      choices: Array<{ message: { tool_calls: unknown[] }; finish_reason: string }>;
    };
    expect(json.choices[0]!.finish_reason).toBe('tool_calls');
    expect(json.choices[0]!.message.tool_calls).toEqual([
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
    ]);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.body).toEqual({ model: 'gpt-test', messages: [] });
    expect(fake.requests[0]!.headers['content-type']).toBe('application/json');
  });

  it('streams OpenAI deltas with the id only first and usage only when asked', async () => {
    const turn = {
      toolCalls: [{ name: 'f', arguments: { a: 'long value' } }],
      usage: { inputTokens: 5, outputTokens: 2 },
    };
    fake = await startFakeProvider({ provider: 'openai', turns: [turn, turn] });
    const withUsage = sseData(
      await (
        await post('/v1/chat/completions', {
          model: 'm',
          stream: true,
          stream_options: { include_usage: true },
        })
      ).text(),
    ) as Array<{
      choices: Array<{
        delta: { tool_calls?: Array<{ id?: string; function: { arguments: string } }> };
      }>;
      usage?: unknown;
    }>;
    const callDeltas = withUsage.flatMap((chunk) =>
      chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []),
    );
    expect(callDeltas[0]!.id).toBe('call_fake1x0');
    expect(callDeltas.slice(1).every((delta) => delta.id === undefined)).toBe(true);
    expect(callDeltas.map((delta) => delta.function.arguments).join('')).toBe('{"a":"long value"}');
    expect(withUsage.at(-1)!.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 2 });
    const withoutUsage = sseData(
      await (await post('/v1/chat/completions', { model: 'm', stream: true })).text(),
    ) as Array<{ usage?: unknown }>;
    expect(withoutUsage.some((chunk) => chunk.usage !== undefined)).toBe(false);
  });

  it('streams Anthropic input_json_delta fragments that join to the arguments', async () => {
    fake = await startFakeProvider({
      provider: 'anthropic',
      turns: [{ text: 'Checking.', toolCalls: [{ name: 'f', arguments: { city: 'Paris' } }] }],
    });
    const events = sseData(
      await (await post('/v1/messages', { model: 'claude-test', stream: true })).text(),
    ) as Array<{
      type: string;
      delta?: { type: string; partial_json?: string; text?: string; stop_reason?: string };
    }>;
    const json = events
      .flatMap((event) =>
        event.delta?.type === 'input_json_delta' ? [event.delta.partial_json] : [],
      )
      .join('');
    expect(JSON.parse(json)).toEqual({ city: 'Paris' });
    expect(events.find((event) => event.type === 'message_delta')!.delta!.stop_reason).toBe(
      'tool_use',
    );
    expect(events.at(-1)!.type).toBe('message_stop');
  });

  it('streams Ollama NDJSON unless stream is false', async () => {
    fake = await startFakeProvider({
      provider: 'ollama',
      turns: [{ text: 'Hello there' }, { text: 'Hello there' }],
    });
    const lines = (await (await post('/api/chat', { model: 'llama' })).text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { message: { content: string }; done: boolean });
    expect(lines.map((line) => line.message.content).join('')).toBe('Hello there');
    expect(lines.at(-1)!.done).toBe(true);
    const json = (await (await post('/api/chat', { model: 'llama', stream: false })).json()) as {
      message: { content: string };
      done_reason: string;
    };
    expect(json).toMatchObject({ message: { content: 'Hello there' }, done_reason: 'stop' });
  });

  it('answers a request with no turn left with a 500 that says so', async () => {
    fake = await startFakeProvider({ provider: 'anthropic' });
    const response = await post('/v1/messages', { model: 'x' });
    expect(response.status).toBe(500);
    expect(JSON.stringify(await response.json())).toContain('no scripted turn left');
  });

  it('sends error turns with their status and headers, and raw turns verbatim', async () => {
    fake = await startFakeProvider({ provider: 'openai' });
    fake.push(
      { error: { status: 429, headers: { 'retry-after': '2' } } },
      { raw: wireFixture('openai-chat-tools.json') },
    );
    const limited = await post('/v1/chat/completions', {});
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(await (await post('/v1/chat/completions', {})).text()).toBe(
      wireFixture('openai-chat-tools.json').body,
    );
  });

  it('scripts a turn from the request when given a function', async () => {
    fake = await startFakeProvider({
      provider: 'openai',
      turns: [(request) => ({ text: `you sent ${request.body.model}` })],
    });
    const json = (await (await post('/v1/chat/completions', { model: 'abc' })).json()) as {
      choices: Array<{ message: { content: string } }>;
    };
    expect(json.choices[0]!.message.content).toBe('you sent abc');
  });

  it('answers with fallbackTurn once the scripted turns are used up', async () => {
    fake = await startFakeProvider({
      provider: 'openai',
      turns: [{ text: 'scripted' }],
      fallbackTurn: (request) => ({ text: `again ${request.body.model}` }),
    });
    const texts: string[] = [];
    for (const model of ['a', 'b', 'c']) {
      const json = (await (await post('/v1/chat/completions', { model })).json()) as {
        choices: Array<{ message: { content: string } }>;
      };
      texts.push(json.choices[0]!.message.content);
    }
    expect(texts).toEqual(['scripted', 'again b', 'again c']);
  });

  it('drops the connection mid-stream after the given number of chunks', async () => {
    fake = await startFakeProvider({ provider: 'openai', turns: [{ dropAfter: 2 }] });
    const response = await post('/v1/chat/completions', { model: 'm', stream: true });
    await expect(response.text()).rejects.toThrow();
  });

  it('ends hanging requests on close', async () => {
    fake = await startFakeProvider({ provider: 'ollama', turns: [{ hang: true }] });
    const pending = post('/api/chat', {});
    pending.catch(() => undefined);
    const server = fake;
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    await fake.close();
    fake = undefined;
    await expect(pending).rejects.toThrow();
  });
});
