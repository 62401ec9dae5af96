import {
  chunkText,
  finishReasonOf,
  type FakeAnswer,
  type RenderContext,
  type WireRenderer,
} from './fake-turn.js';

const ROUTE = /^\/(?:v1|v1beta|v1alpha)\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;
const FINISH = { stop: 'STOP', length: 'MAX_TOKENS', 'tool-calls': 'STOP' } as const;
const FAKE_THOUGHT_SIGNATURE = 'ZmFrZS10aG91Z2h0LXNpZ25hdHVyZQ==';

/** Gemini counts thoughts beside the candidates: `total = prompt + candidates + thoughts`. */
function usageMetadata(answer: FakeAnswer): Record<string, unknown> {
  const usage = answer.usage ?? { inputTokens: 0, outputTokens: 0 };
  const thoughts = usage.reasoningTokens ?? 0;
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: usage.outputTokens - thoughts,
    totalTokenCount: usage.inputTokens + usage.outputTokens,
    ...(usage.cachedInputTokens !== undefined
      ? { cachedContentTokenCount: usage.cachedInputTokens }
      : {}),
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
  };
}

function functionCallParts(answer: FakeAnswer): Array<Record<string, unknown>> {
  return (answer.toolCalls ?? []).map((call, index) => ({
    functionCall: {
      ...(call.id !== undefined ? { id: call.id } : {}),
      name: call.name,
      // A raw string (malformed or truncated arguments) is sent as it is.
      args: call.arguments ?? {},
    },
    // With thinking on, the first call of a turn carries the signature.
    ...(answer.reasoning !== undefined && index === 0
      ? { thoughtSignature: FAKE_THOUGHT_SIGNATURE }
      : {}),
  }));
}

function chunk(
  parts: unknown[],
  context: RenderContext,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
    modelVersion: context.model,
    responseId: `fake-response-${context.sequence}`,
  };
}

/**
 * The Gemini API (`POST /v1beta/models/<model>:generateContent`, and
 * `:streamGenerateContent?alt=sse`), as documented: a candidate's `content.parts` hold thoughts
 * (`thought: true`), text and `functionCall` parts (whole, with `args` as an object; `id` only
 * when the turn scripted one); the first call of a thinking turn carries a `thoughtSignature`
 * (the text part when there is no call); `finishReason` is `STOP` also after calls and
 * `MAX_TOKENS` when cut; `usageMetadata` counts thoughts beside the candidates. Streams are SSE
 * `data:` lines, each a whole `GenerateContentResponse`; the last one has the finish reason and
 * the usage.
 */
export const googleWire: WireRenderer = {
  path: '/v1beta/models/<model>:generateContent (and :streamGenerateContent?alt=sse)',
  matches: (path) => ROUTE.test(path),
  modelOf: (path) => ROUTE.exec(path)?.[1],
  isStream: (_body, url) => /:streamGenerateContent(\?|$)/.test(url),

  json(answer, context) {
    const parts: Array<Record<string, unknown>> = [];
    if (answer.reasoning !== undefined) parts.push({ text: answer.reasoning, thought: true });
    const calls = functionCallParts(answer);
    if (answer.text !== undefined && answer.text !== '')
      parts.push({
        text: answer.text,
        ...(answer.reasoning !== undefined && calls.length === 0
          ? { thoughtSignature: FAKE_THOUGHT_SIGNATURE }
          : {}),
      });
    parts.push(...calls);
    return {
      ...chunk(parts, context, { finishReason: FINISH[finishReasonOf(answer)] }),
      usageMetadata: usageMetadata(answer),
    };
  },

  stream(answer, context) {
    const size = answer.chunking?.textChunkSize ?? 4;
    const events: Array<Record<string, unknown>> = [];
    for (const piece of chunkText(answer.reasoning ?? '', size))
      events.push(chunk([{ text: piece, thought: true }], context));
    const calls = functionCallParts(answer);
    const textPieces = chunkText(answer.text ?? '', size);
    textPieces.forEach((piece, i) => {
      const last = i === textPieces.length - 1;
      events.push(
        chunk(
          [
            {
              text: piece,
              ...(last && answer.reasoning !== undefined && calls.length === 0
                ? { thoughtSignature: FAKE_THOUGHT_SIGNATURE }
                : {}),
            },
          ],
          context,
        ),
      );
    });
    // Gemini sends each call whole.
    for (const call of calls) events.push(chunk([call], context));
    const finish = { finishReason: FINISH[finishReasonOf(answer)] };
    const last = events.at(-1);
    if (last) {
      const candidate = (last.candidates as Array<Record<string, unknown>>)[0]!;
      Object.assign(candidate, finish);
      last.usageMetadata = usageMetadata(answer);
    } else {
      events.push({
        ...chunk([{ text: '' }], context, finish),
        usageMetadata: usageMetadata(answer),
      });
    }
    return {
      contentType: 'text/event-stream',
      chunks: events.map((event) => `data: ${JSON.stringify(event)}\r\n\r\n`),
    };
  },

  errorBody(status, message) {
    const name =
      status === 400
        ? 'INVALID_ARGUMENT'
        : status === 401
          ? 'UNAUTHENTICATED'
          : status === 403
            ? 'PERMISSION_DENIED'
            : status === 404
              ? 'NOT_FOUND'
              : status === 429
                ? 'RESOURCE_EXHAUSTED'
                : status === 503
                  ? 'UNAVAILABLE'
                  : status === 504
                    ? 'DEADLINE_EXCEEDED'
                    : 'INTERNAL';
    return { error: { code: status, message, status: name } };
  },
};
