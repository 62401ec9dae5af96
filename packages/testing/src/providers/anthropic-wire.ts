import {
  argumentsText,
  chunkText,
  finishReasonOf,
  type FakeAnswer,
  type RenderContext,
  type WireRenderer,
} from './fake-turn.js';

const STOP = { stop: 'end_turn', length: 'max_tokens', 'tool-calls': 'tool_use' } as const;

function toolUseId(context: RenderContext, index: number, id: string | undefined): string {
  return id ?? `toolu_fake${context.sequence}x${index}`;
}

/** Anthropic reports uncached input in `input_tokens` and cache reads beside it. */
function usageBody(answer: FakeAnswer): {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
} {
  const usage = answer.usage ?? { inputTokens: 0, outputTokens: 0 };
  const cached = usage.cachedInputTokens ?? 0;
  return {
    input_tokens: usage.inputTokens - cached,
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}

function sse(event: string, data: Record<string, unknown>): string {
  return `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
}

/**
 * Anthropic Messages (`POST /v1/messages`). Reasoning becomes a `thinking` block with a fake
 * signature; tool calls become `tool_use` blocks whose streamed input arrives as
 * `input_json_delta` fragments (the first one empty, as the real API sends). A raw-string argument
 * is sent as `input: "<string>"` in JSON and verbatim as `partial_json` when streaming.
 */
export const anthropicWire: WireRenderer = {
  path: '/v1/messages',

  isStream: (body) => body.stream === true,

  json(answer, context) {
    const content: unknown[] = [];
    if (answer.reasoning !== undefined)
      content.push({ type: 'thinking', thinking: answer.reasoning, signature: 'fake-signature' });
    if (answer.text !== undefined && answer.text !== '')
      content.push({ type: 'text', text: answer.text });
    (answer.toolCalls ?? []).forEach((call, index) => {
      content.push({
        type: 'tool_use',
        id: toolUseId(context, index, call.id),
        name: call.name,
        input: call.arguments ?? {},
      });
    });
    return {
      id: `msg_fake${context.sequence}`,
      type: 'message',
      role: 'assistant',
      model: context.model,
      content,
      stop_reason: STOP[finishReasonOf(answer)],
      stop_sequence: null,
      usage: usageBody(answer),
    };
  },

  stream(answer, context) {
    const chunking = answer.chunking ?? {};
    const textSize = chunking.textChunkSize ?? 4;
    const argumentsSize = chunking.argumentsChunkSize ?? 7;
    const usage = usageBody(answer);
    const chunks: string[] = [];
    chunks.push(
      sse('message_start', {
        message: {
          id: `msg_fake${context.sequence}`,
          type: 'message',
          role: 'assistant',
          model: context.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      }),
    );
    chunks.push(sse('ping', {}));
    let index = 0;
    if (answer.reasoning !== undefined) {
      chunks.push(
        sse('content_block_start', {
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        }),
      );
      for (const piece of chunkText(answer.reasoning, textSize)) {
        chunks.push(
          sse('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } }),
        );
      }
      chunks.push(
        sse('content_block_delta', {
          index,
          delta: { type: 'signature_delta', signature: 'fake-signature' },
        }),
      );
      chunks.push(sse('content_block_stop', { index }));
      index++;
    }
    if (answer.text !== undefined && answer.text !== '') {
      chunks.push(sse('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const piece of chunkText(answer.text, textSize)) {
        chunks.push(
          sse('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }),
        );
      }
      chunks.push(sse('content_block_stop', { index }));
      index++;
    }
    (answer.toolCalls ?? []).forEach((call, callIndex) => {
      chunks.push(
        sse('content_block_start', {
          index,
          content_block: {
            type: 'tool_use',
            id: toolUseId(context, callIndex, call.id),
            name: call.name,
            input: {},
          },
        }),
      );
      const text = argumentsText(call.arguments);
      const pieces = chunking.wholeCallInOneChunk
        ? [text]
        : ['', ...chunkText(text, argumentsSize)];
      for (const piece of pieces) {
        chunks.push(
          sse('content_block_delta', {
            index,
            delta: { type: 'input_json_delta', partial_json: piece },
          }),
        );
      }
      chunks.push(sse('content_block_stop', { index }));
      index++;
    });
    chunks.push(
      sse('message_delta', {
        delta: { stop_reason: STOP[finishReasonOf(answer)], stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      }),
    );
    chunks.push(sse('message_stop', {}));
    return { contentType: 'text/event-stream', chunks };
  },

  errorBody(status, message) {
    const type =
      status === 401
        ? 'authentication_error'
        : status === 403
          ? 'permission_error'
          : status === 404
            ? 'not_found_error'
            : status === 413
              ? 'request_too_large'
              : status === 429
                ? 'rate_limit_error'
                : status === 529
                  ? 'overloaded_error'
                  : status >= 500
                    ? 'api_error'
                    : 'invalid_request_error';
    return { type: 'error', error: { type, message } };
  },
};
