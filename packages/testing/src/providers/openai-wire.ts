import {
  argumentsText,
  chunkText,
  finishReasonOf,
  type FakeAnswer,
  type RenderContext,
  type WireRenderer,
} from './fake-turn.js';

const FINISH = { stop: 'stop', length: 'length', 'tool-calls': 'tool_calls' } as const;

function toolCallId(context: RenderContext, index: number, id: string | undefined): string {
  return id ?? `call_fake${context.sequence}x${index}`;
}

function usageBody(answer: FakeAnswer): Record<string, unknown> | undefined {
  const usage = answer.usage;
  if (!usage) return undefined;
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
}

/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`). Streams follow the real API: `id`,
 * `type` and `name` only in a call's first delta, arguments in fragments, a finish chunk, and a
 * usage chunk with `choices: []` only when the request set `stream_options.include_usage`.
 * Reasoning is rendered as `reasoning_content` (xAI, DeepSeek and vLLM spell it so).
 */
export const openaiWire: WireRenderer = {
  path: '/v1/chat/completions',

  isStream: (body) => body.stream === true,

  json(answer, context) {
    const toolCalls = (answer.toolCalls ?? []).map((call, index) => ({
      id: toolCallId(context, index, call.id),
      type: 'function',
      function: { name: call.name, arguments: argumentsText(call.arguments) },
    }));
    const usage = usageBody(answer);
    return {
      id: `chatcmpl-fake${context.sequence}`,
      object: 'chat.completion',
      created: 1_700_000_000 + context.sequence,
      model: context.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: answer.text ?? null,
            ...(answer.reasoning !== undefined ? { reasoning_content: answer.reasoning } : {}),
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            refusal: null,
          },
          logprobs: null,
          finish_reason: FINISH[finishReasonOf(answer)],
        },
      ],
      ...(usage ? { usage } : {}),
    };
  },

  stream(answer, context) {
    const chunking = answer.chunking ?? {};
    const textSize = chunking.textChunkSize ?? 4;
    const argumentsSize = chunking.argumentsChunkSize ?? 7;
    const omitIdAfterFirst = chunking.omitIdAfterFirst ?? true;
    const base = {
      id: `chatcmpl-fake${context.sequence}`,
      object: 'chat.completion.chunk',
      created: 1_700_000_000 + context.sequence,
      model: context.model,
    };
    const chunks: string[] = [];
    const emit = (delta: Record<string, unknown>, finishReason: string | null = null) =>
      chunks.push(
        `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] })}\n\n`,
      );

    emit({ role: 'assistant', content: '' });
    for (const piece of chunkText(answer.reasoning ?? '', textSize))
      emit({ reasoning_content: piece });
    for (const piece of chunkText(answer.text ?? '', textSize)) emit({ content: piece });
    (answer.toolCalls ?? []).forEach((call, index) => {
      const id = toolCallId(context, index, call.id);
      const withIndex = (entry: Record<string, unknown>) =>
        chunking.omitIndex ? entry : { index, ...entry };
      const text = argumentsText(call.arguments);
      if (chunking.wholeCallInOneChunk) {
        emit({
          tool_calls: [
            withIndex({ id, type: 'function', function: { name: call.name, arguments: text } }),
          ],
        });
        return;
      }
      emit({
        tool_calls: [
          withIndex({ id, type: 'function', function: { name: call.name, arguments: '' } }),
        ],
      });
      for (const piece of chunkText(text, argumentsSize)) {
        emit({
          tool_calls: [
            withIndex({
              ...(omitIdAfterFirst ? {} : { id, type: 'function' }),
              function: { arguments: piece },
            }),
          ],
        });
      }
    });
    emit({}, FINISH[finishReasonOf(answer)]);
    const options = context.body.stream_options as { include_usage?: boolean } | undefined;
    const usage = usageBody(answer);
    if (options?.include_usage === true && usage) {
      chunks.push(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
    }
    chunks.push('data: [DONE]\n\n');
    return { contentType: 'text/event-stream', chunks };
  },

  errorBody(status, message) {
    const type =
      status === 401
        ? 'invalid_request_error'
        : status === 429
          ? 'rate_limit_exceeded'
          : status >= 500
            ? 'server_error'
            : 'invalid_request_error';
    const code = status === 401 ? 'invalid_api_key' : status === 429 ? 'rate_limit_exceeded' : null;
    return { error: { message, type, param: null, code } };
  },
};
