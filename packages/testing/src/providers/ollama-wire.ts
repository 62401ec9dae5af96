import {
  chunkText,
  finishReasonOf,
  type FakeAnswer,
  type RenderContext,
  type WireRenderer,
} from './fake-turn.js';

function toolCalls(answer: FakeAnswer, context: RenderContext): unknown[] {
  return (answer.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_fake${context.sequence}x${index}`,
    function: { index, name: call.name, arguments: call.arguments ?? {} },
  }));
}

function doneFields(answer: FakeAnswer): Record<string, unknown> {
  // Ollama has no tool-calls reason: a turn that called tools ends with "stop".
  const reason = finishReasonOf(answer) === 'length' ? 'length' : 'stop';
  return {
    done_reason: reason,
    done: true,
    total_duration: 182_242_375,
    load_duration: 41_295_167,
    prompt_eval_count: answer.usage?.inputTokens ?? 0,
    prompt_eval_duration: 24_573_166,
    eval_count: answer.usage?.outputTokens ?? 0,
    eval_duration: 115_959_084,
  };
}

const CREATED_AT = '2026-01-01T00:00:00.000Z';

/**
 * Ollama (`POST /api/chat`), streaming unless the body says `stream: false`, as the real server
 * does. Tool-call arguments are objects (a raw string is sent as a JSON string); calls carry `id`
 * and `function.index` like current servers, and all calls of a turn arrive on one `done:false`
 * line. Usage is `prompt_eval_count` / `eval_count`; Ollama reports no cached or reasoning counts.
 */
export const ollamaWire: WireRenderer = {
  path: '/api/chat',

  isStream: (body) => body.stream !== false,

  json(answer, context) {
    const calls = toolCalls(answer, context);
    return {
      model: context.model,
      created_at: CREATED_AT,
      message: {
        role: 'assistant',
        content: answer.text ?? '',
        ...(answer.reasoning !== undefined ? { thinking: answer.reasoning } : {}),
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      },
      ...doneFields(answer),
    };
  },

  stream(answer, context) {
    const textSize = answer.chunking?.textChunkSize ?? 4;
    const line = (
      message: Record<string, unknown>,
      extra: Record<string, unknown> = { done: false },
    ) =>
      `${JSON.stringify({ model: context.model, created_at: CREATED_AT, message: { role: 'assistant', content: '', ...message }, ...extra })}\n`;
    const chunks: string[] = [];
    for (const piece of chunkText(answer.reasoning ?? '', textSize))
      chunks.push(line({ thinking: piece }));
    for (const piece of chunkText(answer.text ?? '', textSize))
      chunks.push(line({ content: piece }));
    const calls = toolCalls(answer, context);
    if (calls.length > 0) chunks.push(line({ tool_calls: calls }));
    chunks.push(line({}, doneFields(answer)));
    return { contentType: 'application/x-ndjson', chunks };
  },

  errorBody(_status, message) {
    return { error: message };
  },
};
