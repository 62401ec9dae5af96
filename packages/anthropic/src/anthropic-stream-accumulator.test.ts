import { StreamProtocolError, type ChatStreamPart } from '@toolwire/schema';
import { describe, expect, it } from 'vitest';
import {
  AnthropicStreamAccumulator,
  type AnthropicStreamEvent,
} from './anthropic-stream-accumulator.js';

const start: AnthropicStreamEvent = {
  type: 'message_start',
  message: { id: 'msg_1', model: 'm', usage: { input_tokens: 3, output_tokens: 1 } },
};
const delta: AnthropicStreamEvent = {
  type: 'message_delta',
  delta: { stop_reason: 'tool_use' },
  usage: { output_tokens: 9 },
};

function run(events: AnthropicStreamEvent[], hidden?: Set<string>) {
  const accumulator = new AnthropicStreamAccumulator(hidden);
  const parts: ChatStreamPart[] = events.flatMap((event) => accumulator.push(event));
  parts.push(...accumulator.end());
  return { parts, message: () => accumulator.message() };
}

describe('AnthropicStreamAccumulator', () => {
  it('uses an input sent whole in content_block_start when no deltas follow', () => {
    const { parts, message } = run([
      start,
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } },
      },
      { type: 'content_block_stop', index: 0 },
      delta,
      { type: 'message_stop' },
    ]);
    expect(parts.at(-1)).toEqual({
      type: 'tool-call',
      toolCall: { id: 'toolu_1', name: 'f', arguments: { a: 1 } },
    });
    expect(message().content).toEqual([
      { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } },
    ]);
  });

  it('ignores ping and unknown events, and opens a block for a delta whose start never came', () => {
    const { parts, message } = run([
      start,
      { type: 'ping' },
      { type: 'some_future_event', index: 0 },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'citations_delta', citation: {} } },
      delta,
      { type: 'message_stop' },
    ]);
    expect(parts).toEqual([{ type: 'text-delta', delta: 'Hi' }]);
    expect(message().content).toEqual([{ type: 'text', text: 'Hi' }]);
  });

  it('gives a call without an id a generated one, the same in every part and in the message', () => {
    const { parts, message } = run([
      start,
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: '', name: 'f', input: {} },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: '{"a":' },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: '2}' },
      },
      { type: 'content_block_stop', index: 0 },
      delta,
      { type: 'message_stop' },
    ]);
    const ids = new Set(
      parts.map((part) =>
        'id' in part ? part.id : part.type === 'tool-call' ? part.toolCall.id : undefined,
      ),
    );
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    expect(id).toMatch(/^toolu_/);
    expect(message().content).toEqual([{ type: 'tool_use', id, name: 'f', input: { a: 2 } }]);
  });

  it('collects thinking text and its signature', () => {
    const { parts, message } = run([
      start,
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'thinking_delta', thinking: 'Let me ' },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'thinking_delta', thinking: 'think.' },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'signature_delta', signature: 'EqQB' },
      },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'redacted_thinking', data: 'opaque' },
      },
      { type: 'content_block_stop', index: 1 },
      delta,
      { type: 'message_stop' },
    ]);
    expect(parts).toEqual([
      { type: 'reasoning-delta', delta: 'Let me ' },
      { type: 'reasoning-delta', delta: 'think.' },
    ]);
    expect(message().content).toEqual([
      { type: 'thinking', thinking: 'Let me think.', signature: 'EqQB' },
      { type: 'redacted_thinking', data: 'opaque' },
    ]);
  });

  it('accepts a stream cut right before message_stop (the stop reason already arrived) and closes open calls', () => {
    const { parts, message } = run([
      start,
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: '{}' },
      },
      delta,
    ]);
    expect(parts.at(-1)).toEqual({
      type: 'tool-call',
      toolCall: { id: 'toolu_1', name: 'f', arguments: {} },
    });
    expect(message().stop_reason).toBe('tool_use');
  });

  it('fails with StreamProtocolError when the stream ends before the stop reason', () => {
    const { message } = run([
      start,
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ]);
    expect(() => message()).toThrow(StreamProtocolError);
    expect(() => run([]).message()).toThrow(/before message_start/);
  });

  it('emits no parts for hidden tools (the structured-output tool) but keeps them in the message', () => {
    const { parts, message } = run(
      [
        start,
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_r', name: 'json_response', input: {} },
        },
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: '{"x":1}' },
        },
        { type: 'content_block_stop', index: 0 },
        delta,
        { type: 'message_stop' },
      ],
      new Set(['json_response']),
    );
    expect(parts).toEqual([]);
    expect(message().content).toEqual([
      { type: 'tool_use', id: 'toolu_r', name: 'json_response', input: { x: 1 } },
    ]);
  });
});
