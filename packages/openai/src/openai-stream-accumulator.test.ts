import type { ChatStreamPart } from '@toolwire/schema';
import { describe, expect, it } from 'vitest';
import { OpenAIStreamAccumulator, type OpenAIWireChunk } from './openai-stream-accumulator.js';

type ToolDelta = NonNullable<
  NonNullable<NonNullable<OpenAIWireChunk['choices']>[number]['delta']>['tool_calls']
>[number];

const calls = (...deltas: ToolDelta[]): OpenAIWireChunk => ({
  choices: [{ index: 0, delta: { tool_calls: deltas } }],
});
const finish = (reason = 'tool_calls'): OpenAIWireChunk => ({
  choices: [{ index: 0, delta: {}, finish_reason: reason }],
});

function run(chunks: OpenAIWireChunk[]): {
  parts: ChatStreamPart[];
  accumulator: OpenAIStreamAccumulator;
} {
  const accumulator = new OpenAIStreamAccumulator('m');
  const parts = chunks.flatMap((chunk) => accumulator.push(chunk));
  parts.push(...accumulator.finishParts());
  return { parts, accumulator };
}

describe('OpenAIStreamAccumulator', () => {
  it('keeps two calls apart when both use index 0 with different ids', () => {
    const { accumulator } = run([
      calls({ index: 0, id: 'call_a', function: { name: 'f', arguments: '{"x":' } }),
      calls({ index: 0, function: { arguments: '1}' } }),
      calls({ index: 0, id: 'call_b', function: { name: 'g', arguments: '{"y":' } }),
      calls({ index: 0, function: { arguments: '2}' } }),
      finish(),
    ]);
    expect(accumulator.result().toolCalls).toEqual([
      { id: 'call_a', name: 'f', arguments: '{"x":1}' },
      { id: 'call_b', name: 'g', arguments: '{"y":2}' },
    ]);
  });

  it('joins fragments of one id sent at several indexes', () => {
    const { accumulator } = run([
      calls({ index: 0, id: 'call_a', function: { name: 'f', arguments: '{"x"' } }),
      calls({ index: 3, id: 'call_a', function: { arguments: ':1}' } }),
      finish(),
    ]);
    expect(accumulator.result().toolCalls).toEqual([
      { id: 'call_a', name: 'f', arguments: '{"x":1}' },
    ]);
  });

  it('makes up an id when the server never sends one, and keys fragments on the index', () => {
    const { accumulator, parts } = run([
      calls({ index: 0, function: { name: 'f', arguments: '' } }),
      calls({ index: 1, function: { name: 'g', arguments: '{}' } }),
      calls({ index: 0, function: { arguments: '{"a":1}' } }),
      finish(),
    ]);
    const result = accumulator.result().toolCalls;
    expect(result.map((call) => [call.name, call.arguments])).toEqual([
      ['f', '{"a":1}'],
      ['g', '{}'],
    ]);
    expect(result[0]!.id).toMatch(/^call_/);
    expect(result[0]!.id).not.toBe(result[1]!.id);
    expect(
      parts
        .filter((part) => part.type === 'tool-call-start')
        .map((part) => (part as { index: number }).index),
    ).toEqual([0, 1]);
  });

  it('keeps object-valued arguments some compatible servers send', () => {
    const { accumulator } = run([
      calls({ index: 0, id: 'c', function: { name: 'f', arguments: { city: 'Paris' } } }),
      finish(),
    ]);
    expect(accumulator.result().toolCalls).toEqual([
      { id: 'c', name: 'f', arguments: { city: 'Paris' } },
    ]);
  });

  it('starts a call only once its name is known, replaying fragments that came first', () => {
    const { parts } = run([
      calls({ index: 0, id: 'c', function: { arguments: '{"a"' } }),
      calls({ index: 0, function: { name: 'f', arguments: ':1}' } }),
      finish(),
    ]);
    expect(parts.map((part) => part.type)).toEqual([
      'tool-call-start',
      'tool-call-delta',
      'tool-call-delta',
      'tool-call',
    ]);
    expect(
      parts
        .filter((part) => part.type === 'tool-call-delta')
        .map((part) => (part as { argumentsDelta: string }).argumentsDelta)
        .join(''),
    ).toBe('{"a":1}');
  });

  it('reads reasoning from reasoning_content and reasoning, ignores other choices, and needs a finish reason', () => {
    const accumulator = new OpenAIStreamAccumulator('m');
    accumulator.push({ choices: [{ index: 0, delta: { reasoning_content: 'think ' } }] });
    accumulator.push({ choices: [{ index: 0, delta: { reasoning: 'more' } }] });
    accumulator.push({ choices: [{ index: 1, delta: { content: 'other choice' } }] });
    accumulator.push({ choices: [{ index: 0, delta: { content: 'answer' } }] });
    expect(accumulator.finished).toBe(false);
    accumulator.push(finish('stop'));
    accumulator.push({
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
    expect(accumulator.finished).toBe(true);
    expect(accumulator.result()).toMatchObject({
      text: 'answer',
      reasoning: 'think more',
      rawFinishReason: 'stop',
      usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
    });
  });
});
