import { getEncoding } from 'js-tiktoken';
import { describe, expect, it } from 'vitest';
import { addUsage, collectStream, type ChatStreamPart } from './chat-model.js';
import { CancelledError, NoSuchToolError, nearestNames } from './errors.js';
import { parseRetryAfter, ProviderError, RateLimitError } from './provider-errors.js';
import { estimateTokens, estimateToolListTokens } from './token-estimate.js';
import { assertToolChoice, toolChoiceViolation } from './tool-choice.js';
import { toolCallArgumentsObject, toolCallArgumentsText } from './tool-call.js';
import { toolFailureFromError, toolResultText } from './tool-result.js';
import { ToolwireError } from './toolwire-error.js';

describe('ToolwireError', () => {
  it('recognises instances from another copy of the package by its symbol marker', () => {
    const foreign = Object.assign(new Error('x'), {
      [Symbol.for('toolwire.error')]: true,
      code: 'x',
    });
    expect(ToolwireError.isInstance(foreign)).toBe(true);
    expect(ToolwireError.isInstance(new Error('plain'))).toBe(false);
    expect(ToolwireError.isInstance(new CancelledError())).toBe(true);
  });

  it('called on a subclass, recognises only that subclass (also from another package copy)', () => {
    const other = new ToolwireError('connection', { message: 'fetch failed' });
    expect(CancelledError.isInstance(other)).toBe(false);
    expect(CancelledError.isInstance(new CancelledError())).toBe(true);
    expect(ProviderError.isInstance(new RateLimitError({ message: 'x', provider: 'p' }))).toBe(
      true,
    );
    // Another copy's CancelledError: same class name, different constructor.
    class CopyBase extends Error {
      constructor(message: string) {
        super(message);
        Object.assign(this, { [Symbol.for('toolwire.error')]: true });
      }
    }
    const copy = new (class CancelledError extends CopyBase {})('stop');
    expect(CancelledError.isInstance(copy)).toBe(true);
    expect(ProviderError.isInstance(copy)).toBe(false);
  });

  it('keeps the cause and a stable code', () => {
    const cause = new Error('socket hang up');
    const error = new RateLimitError({
      message: 'slow down',
      provider: 'openai',
      statusCode: 429,
      retryAfterMs: 1200,
      cause,
    });
    expect(error.cause).toBe(cause);
    expect(error.code).toBe('rate_limited');
    expect(error.retryable).toBe(true);
    expect(ProviderError.isProviderError(error)).toBe(true);
    expect(error.toJSON()).toEqual({
      name: 'RateLimitError',
      code: 'rate_limited',
      message: 'slow down',
    });
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds, milliseconds and HTTP dates', () => {
    expect(parseRetryAfter({ 'retry-after': '2' })).toBe(2000);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '150', 'retry-after': '9' }))).toBe(150);
    expect(parseRetryAfter({ 'retry-after': new Date(10_000).toUTCString() }, 4_000)).toBe(6000);
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe('nearestNames', () => {
  it('suggests close names first and nothing far away', () => {
    expect(
      nearestNames('fs__read_fil', ['fs__read_file', 'fs__write_file', 'memory__read_graph']),
    ).toEqual(['fs__read_file', 'fs__write_file']);
    expect(nearestNames('zzz', ['alpha', 'beta'])).toEqual([]);
    expect(new NoSuchToolError({ toolName: 'zzz', availableTools: ['alpha'] }).message).toBe(
      'No tool named "zzz"',
    );
  });
});

describe('tool choice', () => {
  it('rejects choices that cannot work for the request', () => {
    expect(() => assertToolChoice('required', [])).toThrow(/needs at least one tool/);
    expect(() => assertToolChoice({ type: 'tool', toolName: 'nope' }, ['a'])).toThrow(
      /"nope", which is not among/,
    );
    expect(() => assertToolChoice({ type: 'tool', toolName: 'a' }, ['a'])).not.toThrow();
    expect(() => assertToolChoice('sometimes' as never, ['a'])).toThrow(/toolChoice must be/);
  });

  it('checks an allowed set of tools: non-empty, known names, auto or required', () => {
    expect(() =>
      assertToolChoice({ type: 'allowed', toolNames: ['a', 'b'], mode: 'required' }, [
        'a',
        'b',
        'c',
      ]),
    ).not.toThrow();
    expect(() => assertToolChoice({ type: 'allowed', toolNames: [] }, ['a'])).toThrow(
      /needs toolNames, a non-empty array/,
    );
    expect(() => assertToolChoice({ type: 'allowed', toolNames: ['a', 'x', 'y'] }, ['a'])).toThrow(
      /allows "x", "y", which are not among the request's tools \(a\)/,
    );
    expect(() =>
      assertToolChoice({ type: 'allowed', toolNames: ['a'], mode: 'always' as never }, ['a']),
    ).toThrow(/mode "auto" or "required"/);
  });

  it('detects calls outside an allowed set, and no call when one was required', () => {
    const allowed = { type: 'allowed' as const, toolNames: ['a', 'b'] };
    expect(toolChoiceViolation(allowed, ['a', 'c'])).toBe(
      'toolChoice allowed only a, b but the model called c',
    );
    expect(toolChoiceViolation(allowed, [])).toBeUndefined();
    expect(toolChoiceViolation({ ...allowed, mode: 'required' }, [])).toBe(
      'toolChoice required one of a, b but the model called no tool',
    );
    expect(toolChoiceViolation(allowed, ['b'])).toBeUndefined();
  });

  it('detects after the fact when a provider ignored the choice', () => {
    expect(toolChoiceViolation('none', ['a'])).toBe('toolChoice was "none" but the model called a');
    expect(toolChoiceViolation('required', [])).toBe(
      'toolChoice was "required" but the model called no tool',
    );
    expect(toolChoiceViolation({ type: 'tool', toolName: 'a' }, ['a', 'b'])).toBe(
      'toolChoice required "a" but the model also called b',
    );
    expect(toolChoiceViolation('auto', [])).toBeUndefined();
    expect(toolChoiceViolation({ type: 'tool', toolName: 'a' }, ['a'])).toBeUndefined();
  });
});

describe('tool calls and results', () => {
  it('reads arguments in either provider form', () => {
    expect(toolCallArgumentsText({ id: '1', name: 'x', arguments: { a: 1 } })).toBe('{"a":1}');
    expect(toolCallArgumentsText({ id: '1', name: 'x', arguments: '' })).toBe('{}');
    expect(toolCallArgumentsObject({ id: '1', name: 'x', arguments: '{"a":1}' })).toEqual({ a: 1 });
    expect(toolCallArgumentsObject({ id: '1', name: 'x', arguments: '{"a":' })).toBeUndefined();
  });

  it('renders images as a placeholder, never as base64 text', () => {
    const text = toolResultText({
      toolCallId: '1',
      toolName: 'shot',
      isError: false,
      content: [
        { type: 'text', text: 'here' },
        { type: 'image', data: 'A'.repeat(400), mediaType: 'image/png' },
      ],
    });
    expect(text).toBe(
      'here\n[image: image/png, 300 bytes, not shown: this model does not accept images in tool results]',
    );
  });

  it('leaves images out or names them as asked, and marks failures for flagless wire formats', () => {
    const result = {
      toolCallId: '1',
      toolName: 'shot',
      isError: true,
      content: [
        { type: 'json' as const, value: { code: 7 } },
        { type: 'image' as const, data: 'AAAA', mediaType: 'image/png' },
        { type: 'resource' as const, uri: 'file:///a.txt', mimeType: 'text/plain' },
      ],
    };
    expect(toolResultText(result, { imageText: () => undefined })).toBe(
      '{"code":7}\n[resource file:///a.txt (text/plain)]',
    );
    expect(
      toolResultText(result, { imageText: (image) => `<${image.mediaType}>`, markFailure: true }),
    ).toBe('Tool execution failed: {"code":7}\n<image/png>\n[resource file:///a.txt (text/plain)]');
    const empty = { ...result, content: [] };
    expect(toolResultText(empty, { markFailure: true })).toBe('Tool execution failed.');
    expect(toolResultText({ ...empty, isError: false }, { markFailure: true })).toBe(
      '(the tool returned no content)',
    );
    expect(toolResultText({ ...empty, isError: false })).toBe('');
  });

  it('classifies thrown errors into categories', () => {
    expect(
      toolFailureFromError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })).category,
    ).toBe('networkError');
    expect(
      toolFailureFromError(Object.assign(new Error('denied'), { code: 'EACCES' })).category,
    ).toBe('permissionDenied');
    expect(toolFailureFromError(new DOMException('aborted', 'AbortError')).category).toBe(
      'cancelled',
    );
    expect(toolFailureFromError('a string').message).toBe('a string');
  });
});

describe('usage and streams', () => {
  it('sums usage and keeps optional counters only when reported', () => {
    expect(
      addUsage(
        { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
        { inputTokens: 10, outputTokens: 20, totalTokens: 30, cachedInputTokens: 4 },
      ),
    ).toEqual({
      inputTokens: 11,
      outputTokens: 22,
      totalTokens: 33,
      cachedInputTokens: 4,
    });
  });

  it('collects the final response of a stream, and fails when there is none', async () => {
    async function* parts(withFinish: boolean): AsyncGenerator<ChatStreamPart> {
      yield { type: 'text-delta', delta: 'hi' };
      if (withFinish) {
        yield {
          type: 'finish',
          response: {
            text: 'hi',
            toolCalls: [],
            finishReason: 'stop',
            usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
            warnings: [],
            modelId: 'm',
          },
        };
      }
    }
    expect((await collectStream(parts(true))).text).toBe('hi');
    await expect(collectStream(parts(false))).rejects.toThrow(/without a finish part/);
  });
});

describe('estimateTokens', () => {
  it('stays within 15% of a real BPE tokenizer (o200k) on prose, JSON and tool lists', () => {
    const encoder = getEncoding('o200k_base');
    const samples = [
      'Hello world',
      'The quick brown fox jumps over the lazy dog. Internationalization is hard, but worth it.',
      '{"type":"object","properties":{"location":{"type":"string"}}}',
      JSON.stringify({
        type: 'function',
        function: {
          name: 'read_text_file',
          description:
            'Read the complete contents of a file from the file system as text. Handles various text encodings.',
          parameters: {
            type: 'object',
            properties: {
              path: { type: 'string' },
              head: { type: 'number', description: 'First N lines only' },
            },
            required: ['path'],
          },
        },
      }),
    ];
    for (const sample of samples) {
      const real = encoder.encode(sample).length;
      const estimate = estimateTokens(sample);
      expect(
        Math.abs(estimate - real) / real,
        `${estimate} vs ${real} for ${sample.slice(0, 30)}`,
      ).toBeLessThanOrEqual(0.15);
    }
  });

  it('grows with the tool list', () => {
    const tool = {
      name: 'get_weather',
      description: 'Get current weather for a location',
      inputSchema: { type: 'object', properties: { location: { type: 'string' } } },
    } as const;
    const one = estimateToolListTokens([tool]);
    expect(estimateToolListTokens([tool, { ...tool, name: 'get_forecast' }])).toBeGreaterThan(
      one * 1.8,
    );
  });
});

describe('parseTraceparent', () => {
  it('reads a W3C traceparent and refuses malformed, ff-version and all-zero ids', async () => {
    const { parseTraceparent, formatTraceparent } = await import('./traceparent.js');
    const header = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const fields = parseTraceparent(` ${header} `);
    expect(fields).toEqual({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
    });
    expect(formatTraceparent(fields!)).toBe(header);
    expect(
      parseTraceparent('ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'),
    ).toBeUndefined();
    expect(
      parseTraceparent('00-00000000000000000000000000000000-b7ad6b7169203331-01'),
    ).toBeUndefined();
    expect(
      parseTraceparent('00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01'),
    ).toBeUndefined();
    expect(parseTraceparent('00-xyz')).toBeUndefined();
    expect(parseTraceparent(undefined)).toBeUndefined();
  });
});
