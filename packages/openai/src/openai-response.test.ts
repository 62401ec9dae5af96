import { describe, expect, it } from 'vitest';
import { normalizeOpenAIFinishReason, normalizeOpenAIUsage } from './openai-response.js';

describe('normalizeOpenAIUsage', () => {
  it('keeps OpenAI counts, with cached and reasoning tokens', () => {
    expect(
      normalizeOpenAIUsage({
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
      normalizeOpenAIUsage({
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
    expect(normalizeOpenAIUsage(undefined)).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
    });
    expect(normalizeOpenAIUsage({ prompt_tokens: 2, completion_tokens: 3 })).toEqual({
      inputTokens: 2,
      outputTokens: 3,
      totalTokens: 5,
    });
  });
});

describe('normalizeOpenAIFinishReason', () => {
  it('maps the wire reasons and treats "stop" after tool calls as tool-calls', () => {
    expect(normalizeOpenAIFinishReason('stop', false)).toBe('stop');
    expect(normalizeOpenAIFinishReason('stop', true)).toBe('tool-calls');
    expect(normalizeOpenAIFinishReason('tool_calls', true)).toBe('tool-calls');
    expect(normalizeOpenAIFinishReason('function_call', true)).toBe('tool-calls');
    expect(normalizeOpenAIFinishReason('length', true)).toBe('length');
    expect(normalizeOpenAIFinishReason('content_filter', false)).toBe('content-filter');
    expect(normalizeOpenAIFinishReason('something_new', false)).toBe('other');
    expect(normalizeOpenAIFinishReason(undefined, false)).toBe('other');
  });
});
