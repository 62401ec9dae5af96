import { describe, expect, it } from 'vitest';
import { mapOpenAIFinishReason, mapOpenAIUsage } from './openai-response.js';

describe('mapOpenAIUsage', () => {
  it('keeps OpenAI counts, with cached and reasoning tokens', () => {
    expect(
      mapOpenAIUsage({
        prompt_tokens: 100,
        completion_tokens: 50,
        total_tokens: 150,
        prompt_tokens_details: { cached_tokens: 80 },
        completion_tokens_details: { reasoning_tokens: 20 },
      }),
    ).toEqual({
      inputTokens: 100,
      outputTokens: 50,
      totalTokens: 150,
      cachedInputTokens: 80,
      reasoningTokens: 20,
    });
  });

  it('adds reasoning to output when the provider counts it outside completion_tokens (xAI)', () => {
    expect(
      mapOpenAIUsage({
        prompt_tokens: 291,
        completion_tokens: 26,
        total_tokens: 506,
        completion_tokens_details: { reasoning_tokens: 189 },
      }),
    ).toEqual({
      inputTokens: 291,
      outputTokens: 215,
      totalTokens: 506,
      reasoningTokens: 189,
    });
  });

  it('gives zeros when there is no usage, and computes a missing total', () => {
    expect(mapOpenAIUsage(undefined)).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
    });
    expect(mapOpenAIUsage({ prompt_tokens: 2, completion_tokens: 3 })).toEqual({
      inputTokens: 2,
      outputTokens: 3,
      totalTokens: 5,
    });
  });
});

describe('mapOpenAIFinishReason', () => {
  it('maps the wire reasons and treats "stop" after tool calls as tool-calls', () => {
    expect(mapOpenAIFinishReason('stop', false)).toBe('stop');
    expect(mapOpenAIFinishReason('stop', true)).toBe('tool-calls');
    expect(mapOpenAIFinishReason('tool_calls', true)).toBe('tool-calls');
    expect(mapOpenAIFinishReason('function_call', true)).toBe('tool-calls');
    expect(mapOpenAIFinishReason('length', true)).toBe('length');
    expect(mapOpenAIFinishReason('content_filter', false)).toBe('content-filter');
    expect(mapOpenAIFinishReason('something_new', false)).toBe('other');
    expect(mapOpenAIFinishReason(undefined, false)).toBe('other');
  });
});
