import {
  CancelledError,
  StreamProtocolError,
  guardPromise,
  guardStream,
  type ChatRequest,
  type ChatResponse,
  type ChatStreamPart,
  type ChatWarning,
} from '@toolwire/schema';
import { mapOpenAIError } from './openai-errors.js';
import {
  assembleResponse,
  type OpenAIResponseParts,
  type ResponseContext,
} from './openai-response.js';

/** What both OpenAI APIs' stream accumulators offer. */
interface OpenAIAccumulator<TEvent> {
  readonly finished: boolean;
  push(event: TEvent): ChatStreamPart[];
  finishParts(): ChatStreamPart[];
  result(): OpenAIResponseParts;
}

export interface StreamOpenAIOptions<TEvent> {
  provider: string;
  modelId: string;
  request: ChatRequest;
  idleTimeoutMs: number;
  /** Warnings found while building the request (yielded first). */
  warnings: ChatWarning[];
  /** Sends the request on the SDK with this signal. */
  open: (signal: AbortSignal) => Promise<AsyncIterable<TEvent>>;
  accumulator: OpenAIAccumulator<TEvent>;
  /** What an unfinished stream lacked, for the error message (e.g. "no finish_reason"). */
  missingEnd: string;
  context: Omit<ResponseContext, 'provider' | 'request' | 'warnings'>;
}

/**
 * Streams one OpenAI request (Chat Completions or Responses): an idle guard that closes a silent
 * stream, the caller's signal followed, SDK errors mapped, a stream that ends unfinished reported
 * as cut, and the connection closed however the consumer stops.
 */
export async function* streamOpenAI<TEvent>(
  options: StreamOpenAIOptions<TEvent>,
): AsyncGenerator<ChatStreamPart> {
  const { provider, request, accumulator } = options;
  const context = {
    provider,
    signal: request.signal,
    toolNames: (request.tools ?? []).map((tool) => tool.name),
    streaming: true,
    modelId: options.modelId,
  };
  for (const warning of options.warnings) yield { type: 'warning', warning };

  // Our own controller lets the idle guard stop a stalled stream; it follows the caller's signal.
  const controller = new AbortController();
  const onAbort = () => controller.abort(request.signal?.reason);
  request.signal?.addEventListener('abort', onAbort, { once: true });
  const idleMs = options.idleTimeoutMs;
  const idleMessage = `${provider}: the stream sent nothing for ${idleMs} ms and was closed (idleTimeoutMs)`;
  try {
    let stream: AsyncIterable<TEvent>;
    try {
      stream = await guardPromise(options.open(controller.signal), {
        ms: idleMs,
        signal: request.signal,
        onTimeout: () => {
          controller.abort();
          return new StreamProtocolError({ provider, message: idleMessage });
        },
      });
    } catch (error) {
      throw mapOpenAIError(error, { ...context, streaming: false });
    }
    try {
      const guarded = guardStream(stream, {
        idleMs,
        signal: request.signal,
        onStop: () => controller.abort(),
        provider,
        idleMessage,
      });
      for await (const event of guarded) {
        for (const part of accumulator.push(event)) yield part;
      }
    } catch (error) {
      throw mapOpenAIError(error, context);
    }
    // The SDK ends quietly when its request is aborted, so how the stream ended is checked here.
    if (request.signal?.aborted)
      throw new CancelledError({
        message: `${provider}: the request was cancelled`,
        cause: request.signal.reason,
      });
    if (!accumulator.finished) {
      throw new StreamProtocolError({
        provider,
        message: `${provider}: the stream ended before the model finished (${options.missingEnd}): the connection was probably cut`,
      });
    }
  } finally {
    request.signal?.removeEventListener('abort', onAbort);
    // Also when the consumer stops early (`break`): the connection must not stay open.
    controller.abort();
  }
  for (const part of accumulator.finishParts()) yield part;
  const response: ChatResponse = assembleResponse(accumulator.result(), {
    ...options.context,
    provider,
    request,
    warnings: options.warnings,
  });
  // Warnings found while reading the answer (repairs, unusable calls) are parts too.
  for (const warning of response.warnings.slice(options.warnings.length))
    yield { type: 'warning', warning };
  yield { type: 'finish', response };
}
