import {
  CancelledError,
  UnsupportedFeatureError,
  StreamProtocolError,
  guardPromise,
  guardStream,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ChatStreamPart,
  type ModelCapabilities,
} from '@toolwire/schema';
import type OpenAI from 'openai';
import { mapOpenAIError } from './openai-errors.js';
import {
  buildOpenAIRequest,
  type BuiltOpenAIRequest,
  type OpenAIRequestSettings,
} from './openai-request.js';
import {
  assembleResponse,
  readOpenAICompletion,
  type OpenAIWireCompletion,
} from './openai-response.js';
import { OpenAIStreamAccumulator, type OpenAIWireChunk } from './openai-stream-accumulator.js';

export interface OpenAIChatModelConfig extends Omit<OpenAIRequestSettings, 'modelId'> {
  client: OpenAI;
  /** A stream that sends nothing for this long fails with `StreamProtocolError`. */
  idleTimeoutMs: number;
  capabilities: ModelCapabilities;
}

/** A `ChatModel` on the Chat Completions API of OpenAI, xAI or an OpenAI-compatible server. */
export class OpenAIChatModel implements ChatModel {
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  private readonly config: OpenAIChatModelConfig;

  constructor(modelId: string, config: OpenAIChatModelConfig) {
    if (typeof modelId !== 'string' || modelId.trim() === '')
      throw new TypeError('modelId must be a non-empty string');
    this.modelId = modelId;
    this.provider = config.providerName;
    this.capabilities = config.capabilities;
    this.config = config;
  }

  /** The body this model would send for a request (for logging and tests); no I/O. */
  buildRequest(request: ChatRequest, options: { stream?: boolean } = {}): BuiltOpenAIRequest {
    if (!this.capabilities.toolCalling && (request.tools?.length ?? 0) > 0) {
      throw new UnsupportedFeatureError({
        feature: 'toolCalling',
        message: `${this.provider} model "${this.modelId}" is configured without tool calling (capabilities.toolCalling: false), but the request has ${request.tools!.length} tool(s)`,
      });
    }
    return buildOpenAIRequest(
      request,
      { ...this.config, modelId: this.modelId },
      options.stream ?? false,
    );
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    const context = {
      provider: this.provider,
      signal: request.signal,
      toolNames: (request.tools ?? []).map((tool) => tool.name),
      streaming: false,
    };
    if (request.signal?.aborted)
      throw new CancelledError({
        message: `${this.provider}: the request was cancelled before it was sent`,
      });
    const built = this.buildRequest(request);
    let completion: OpenAIWireCompletion;
    try {
      completion = (await this.config.client.chat.completions.create(
        built.body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
        {
          ...(request.signal ? { signal: request.signal } : {}),
          ...(request.headers ? { headers: request.headers } : {}),
        },
      )) as OpenAIWireCompletion;
    } catch (error) {
      throw mapOpenAIError(error, context);
    }
    if (!completion || !Array.isArray(completion.choices)) {
      throw new StreamProtocolError({
        provider: this.provider,
        message: `${this.provider}: the answer has no "choices" array`,
        providerData: completion,
      });
    }
    return assembleResponse(readOpenAICompletion(completion, this.modelId), {
      ...this.responseContext(request, built),
    });
  }

  stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    return { [Symbol.asyncIterator]: () => this.streamParts(request)[Symbol.asyncIterator]() };
  }

  private responseContext(request: ChatRequest, built: BuiltOpenAIRequest) {
    return {
      provider: this.provider,
      request,
      warnings: built.warnings,
      strictToolNames: built.strictToolNames,
      strictResponseFormat: built.strictResponseFormat,
    };
  }

  private async *streamParts(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
    const context = {
      provider: this.provider,
      signal: request.signal,
      toolNames: (request.tools ?? []).map((tool) => tool.name),
      streaming: true,
    };
    if (request.signal?.aborted)
      throw new CancelledError({
        message: `${this.provider}: the request was cancelled before it was sent`,
      });
    const built = this.buildRequest(request, { stream: true });
    for (const warning of built.warnings) yield { type: 'warning', warning };

    // Our own controller lets the idle guard stop a stalled stream; it follows the caller's signal.
    const controller = new AbortController();
    const onAbort = () => controller.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const idleMs = this.config.idleTimeoutMs;
    const idleMessage = `${this.provider}: the stream sent nothing for ${idleMs} ms and was closed (idleTimeoutMs)`;

    const accumulator = new OpenAIStreamAccumulator(this.modelId);
    try {
      let stream: AsyncIterable<OpenAIWireChunk>;
      try {
        stream = (await guardPromise(
          this.config.client.chat.completions.create(
            built.body as unknown as OpenAI.Chat.ChatCompletionCreateParamsStreaming,
            {
              signal: controller.signal,
              ...(request.headers ? { headers: request.headers } : {}),
            },
          ),
          {
            ms: idleMs,
            signal: request.signal,
            onTimeout: () => {
              controller.abort();
              return new StreamProtocolError({ provider: this.provider, message: idleMessage });
            },
          },
        )) as unknown as AsyncIterable<OpenAIWireChunk>;
      } catch (error) {
        throw mapOpenAIError(error, { ...context, streaming: false });
      }
      try {
        const guarded = guardStream(stream, {
          idleMs,
          signal: request.signal,
          onStop: () => controller.abort(),
          provider: this.provider,
          idleMessage,
        });
        for await (const chunk of guarded) {
          for (const part of accumulator.push(chunk)) yield part;
        }
      } catch (error) {
        throw mapOpenAIError(error, context);
      }
      // The SDK ends quietly when its request is aborted, so how the stream ended is checked here.
      if (request.signal?.aborted)
        throw new CancelledError({
          message: `${this.provider}: the request was cancelled`,
          cause: request.signal.reason,
        });
      if (!accumulator.finished) {
        throw new StreamProtocolError({
          provider: this.provider,
          message: `${this.provider}: the stream ended before the model finished (no finish_reason): the connection was probably cut`,
        });
      }
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
      // Also when the consumer stops early (`break`): the connection must not stay open.
      controller.abort();
    }
    for (const part of accumulator.finishParts()) yield part;
    const response = assembleResponse(accumulator.result(), this.responseContext(request, built));
    // Warnings found while reading the answer (repairs, unusable calls) are parts too.
    for (const warning of response.warnings.slice(built.warnings.length))
      yield { type: 'warning', warning };
    yield { type: 'finish', response };
  }
}
