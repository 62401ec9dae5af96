import {
  argumentsText,
  chunkText,
  finishReasonOf,
  type FakeAnswer,
  type RenderContext,
  type WireRenderer,
} from './fake-turn.js';
import { openaiWire } from './openai-wire.js';

function callId(context: RenderContext, index: number, id: string | undefined): string {
  return id ?? `call_fake${context.sequence}x${index}`;
}

function usageBody(answer: FakeAnswer): Record<string, unknown> | null {
  const usage = answer.usage;
  if (!usage) return null;
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/** Whether the request asked for encrypted reasoning (`include: ["reasoning.encrypted_content"]`). */
function wantsEncrypted(context: RenderContext): boolean {
  const include = context.body.include;
  return Array.isArray(include) && include.includes('reasoning.encrypted_content');
}

/** The output items of an answer, complete (as `output` and `response.output_item.done` carry them). */
function outputItems(answer: FakeAnswer, context: RenderContext): Array<Record<string, unknown>> {
  const items: Array<Record<string, unknown>> = [];
  const n = context.sequence;
  if (answer.reasoning !== undefined) {
    items.push({
      id: `rs_fake${n}`,
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: answer.reasoning }],
      ...(wantsEncrypted(context) ? { encrypted_content: `gAAAA-fake-encrypted-${n}` } : {}),
    });
  }
  if (answer.text !== undefined && answer.text !== '') {
    items.push({
      id: `msg_fake${n}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: answer.text, annotations: [] }],
    });
  }
  (answer.toolCalls ?? []).forEach((call, index) => {
    items.push({
      id: `fc_fake${n}x${index}`,
      type: 'function_call',
      status: 'completed',
      call_id: callId(context, index, call.id),
      name: call.name,
      arguments: argumentsText(call.arguments),
    });
  });
  return items;
}

function responseObject(
  answer: FakeAnswer,
  context: RenderContext,
  status: 'in_progress' | 'completed' | 'incomplete',
  output: unknown[],
): Record<string, unknown> {
  const finish = finishReasonOf(answer);
  return {
    id: `resp_fake${context.sequence}`,
    object: 'response',
    created_at: 1_700_000_000 + context.sequence,
    status,
    error: null,
    incomplete_details:
      status === 'incomplete' && finish === 'length' ? { reason: 'max_output_tokens' } : null,
    model: context.model,
    output,
    parallel_tool_calls: context.body.parallel_tool_calls ?? true,
    tool_choice: context.body.tool_choice ?? 'auto',
    tools: context.body.tools ?? [],
    store: context.body.store ?? true,
    usage: status === 'in_progress' ? null : usageBody(answer),
  };
}

/**
 * OpenAI Responses (`POST /v1/responses`), as documented: output items `reasoning` (summary text,
 * `encrypted_content` when the request includes `reasoning.encrypted_content`), `message`
 * (`output_text`) and `function_call`, and `status: "incomplete"` with `max_output_tokens` for
 * a `length` finish. Streams send `response.created`, per item `response.output_item.added`,
 * the deltas (`response.reasoning_summary_text.delta`, `response.output_text.delta`,
 * `response.function_call_arguments.delta`), their `.done` events and
 * `response.output_item.done`, then `response.completed` (or `response.incomplete`), each with a
 * `sequence_number`. Chunking: `wholeCallInOneChunk` sends no argument deltas (only the `.done`
 * event and the finished item carry them), `omitIndex` leaves `output_index` off the deltas.
 */
export const openaiResponsesWire: WireRenderer = {
  path: '/v1/responses',

  isStream: (body) => body.stream === true,

  json(answer, context) {
    const status = finishReasonOf(answer) === 'length' ? 'incomplete' : 'completed';
    return responseObject(answer, context, status, outputItems(answer, context));
  },

  stream(answer, context) {
    const chunking = answer.chunking ?? {};
    const textSize = chunking.textChunkSize ?? 4;
    const argumentsSize = chunking.argumentsChunkSize ?? 7;
    const chunks: string[] = [];
    let sequence = 0;
    const emit = (type: string, data: Record<string, unknown>) =>
      chunks.push(
        `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`,
      );
    const at = (outputIndex: number) => (chunking.omitIndex ? {} : { output_index: outputIndex });
    const items = outputItems(answer, context);
    emit('response.created', { response: responseObject(answer, context, 'in_progress', []) });
    emit('response.in_progress', { response: responseObject(answer, context, 'in_progress', []) });
    items.forEach((item, outputIndex) => {
      const id = item.id as string;
      if (item.type === 'reasoning') {
        emit('response.output_item.added', {
          output_index: outputIndex,
          item: { ...item, summary: [] },
        });
        const text = answer.reasoning ?? '';
        emit('response.reasoning_summary_part.added', {
          item_id: id,
          output_index: outputIndex,
          summary_index: 0,
          part: { type: 'summary_text', text: '' },
        });
        for (const piece of chunkText(text, textSize))
          emit('response.reasoning_summary_text.delta', {
            item_id: id,
            ...at(outputIndex),
            summary_index: 0,
            delta: piece,
          });
        emit('response.reasoning_summary_text.done', {
          item_id: id,
          output_index: outputIndex,
          summary_index: 0,
          text,
        });
        emit('response.reasoning_summary_part.done', {
          item_id: id,
          output_index: outputIndex,
          summary_index: 0,
          part: { type: 'summary_text', text },
        });
      } else if (item.type === 'message') {
        const text = answer.text ?? '';
        emit('response.output_item.added', {
          output_index: outputIndex,
          item: { ...item, status: 'in_progress', content: [] },
        });
        emit('response.content_part.added', {
          item_id: id,
          output_index: outputIndex,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        });
        for (const piece of chunkText(text, textSize))
          emit('response.output_text.delta', {
            item_id: id,
            ...at(outputIndex),
            content_index: 0,
            delta: piece,
            logprobs: [],
          });
        emit('response.output_text.done', {
          item_id: id,
          output_index: outputIndex,
          content_index: 0,
          text,
          logprobs: [],
        });
        emit('response.content_part.done', {
          item_id: id,
          output_index: outputIndex,
          content_index: 0,
          part: { type: 'output_text', text, annotations: [] },
        });
      } else {
        const args = item.arguments as string;
        emit('response.output_item.added', {
          output_index: outputIndex,
          item: { ...item, status: 'in_progress', arguments: '' },
        });
        if (!chunking.wholeCallInOneChunk) {
          for (const piece of chunkText(args, argumentsSize))
            emit('response.function_call_arguments.delta', {
              item_id: id,
              ...at(outputIndex),
              delta: piece,
            });
        }
        emit('response.function_call_arguments.done', {
          item_id: id,
          output_index: outputIndex,
          name: item.name,
          arguments: args,
        });
      }
      emit('response.output_item.done', { output_index: outputIndex, item });
    });
    const incomplete = finishReasonOf(answer) === 'length';
    emit(incomplete ? 'response.incomplete' : 'response.completed', {
      response: responseObject(answer, context, incomplete ? 'incomplete' : 'completed', items),
    });
    return { contentType: 'text/event-stream', chunks };
  },

  // The same error shape as Chat Completions.
  errorBody: (status, message) => openaiWire.errorBody(status, message),
};
