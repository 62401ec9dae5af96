import {
  UsageError,
  CancelledError,
  ClientToolSearch,
  StreamProtocolError,
  UnsupportedFeatureError,
  guardPromise,
  guardStream,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ChatStreamPart,
  type ModelCapabilities,
} from '@toolwire/schema';
import type { GenerateContentParameters, GoogleGenAI } from '@google/genai';
import { mapGoogleError, type GoogleErrorContext } from './google-errors.js';
import {
  buildGoogleRequest,
  type BuiltGoogleRequest,
  type GoogleRequestSettings,
} from './google-request.js';
import { GoogleResponseAccumulator } from './google-response.js';
import type { GoogleWireResponse } from './google-wire.js';

export interface GoogleChatModelConfig extends GoogleRequestSettings {
  client: GoogleGenAI;
  /** A stream that sends nothing for this long fails with `StreamProtocolError`. */
  idleTimeoutMs: number;
  capabilities: ModelCapabilities;
  fetch: typeof globalThis.fetch | undefined;
}

/**
 * A `ChatModel` on the Gemini API (or Vertex AI) through the official `@google/genai` SDK:
 * `generateContent` and `generateContentStream` (`streamGenerateContent?alt=sse`).
 */
export class GoogleChatModel implements ChatModel {
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  private readonly config: GoogleChatModelConfig;

  constructor(modelId: string, config: GoogleChatModelConfig) {
    if (typeof modelId !== 'string' || modelId.trim() === '')
      throw new UsageError({ message: 'modelId must be a non-empty string' });
    this.modelId = modelId;
    this.provider = config.providerName;
    this.capabilities = config.capabilities;
    this.config = config;
  }

  /** The `contents` and `config` this model would send for a request; no I/O. */
  buildRequest(request: ChatRequest): BuiltGoogleRequest {
    return this.build(new ClientToolSearch(request).firstRequest);
  }

  private build(request: ChatRequest): BuiltGoogleRequest {
    if (!this.capabilities.toolCalling && (request.tools?.length ?? 0) > 0) {
      throw new UnsupportedFeatureError({
        feature: 'toolCalling',
        message: `${this.provider} model "${this.modelId}" is configured without tool calling (capabilities.toolCalling: false), but the request has ${request.tools!.length} tool(s)`,
      });
    }
    return buildGoogleRequest(request, this.config);
  }

  /**
   * The SDK call's parameters. The per-request fetch keeps the failed response's headers (the
   * SDK's errors do not carry them), for `retry-after`.
   */
  private parameters(
    request: ChatRequest,
    built: BuiltGoogleRequest,
    signal: AbortSignal | undefined,
    failure: { headers?: Headers },
  ): GenerateContentParameters {
    const baseFetch = this.config.fetch ?? globalThis.fetch;
    const fetchKeepingHeaders: typeof globalThis.fetch = async (input, init) => {
      const response = await baseFetch(input, init);
      if (!response.ok) failure.headers = response.headers;
      return response;
    };
    return {
      model: this.modelId,
      contents: built.contents,
      config: {
        ...built.config,
        ...(signal ? { abortSignal: signal } : {}),
        httpOptions: {
          fetch: fetchKeepingHeaders,
          ...(request.headers ? { headers: request.headers } : {}),
        },
      },
    };
  }

  private errorContext(request: ChatRequest, streaming: boolean): GoogleErrorContext {
    return {
      provider: this.provider,
      signal: request.signal,
      toolNames: (request.tools ?? []).map((tool) => tool.name),
      streaming,
      modelId: this.modelId,
    };
  }

  /**
   * Gemini has no tool search: deferred tools are found through a search tool this adapter
   * answers itself (`ClientToolSearch`), inside this call.
   */
  async generate(request: ChatRequest): Promise<ChatResponse> {
    return ClientToolSearch.generate(request, (round) => this.generateOnce(round));
  }

  stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    return ClientToolSearch.stream(request, (round) => this.streamOnce(round));
  }

  private async generateOnce(request: ChatRequest): Promise<ChatResponse> {
    if (request.signal?.aborted)
      throw new CancelledError({
        message: `${this.provider}: the request was cancelled before it was sent`,
      });
    const built = this.build(request);
    const failure: { headers?: Headers } = {};
    let answer: GoogleWireResponse;
    try {
      answer = (await this.config.client.models.generateContent(
        this.parameters(request, built, request.signal, failure),
      )) as GoogleWireResponse;
    } catch (error) {
      throw mapGoogleError(error, { ...this.errorContext(request, false), ...failure });
    }
    const accumulator = new GoogleResponseAccumulator(this.modelId);
    accumulator.push(answer);
    return accumulator.response({ provider: this.provider, request, warnings: built.warnings });
  }

  private async *streamOnce(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
    if (request.signal?.aborted)
      throw new CancelledError({
        message: `${this.provider}: the request was cancelled before it was sent`,
      });
    const built = this.build(request);
    for (const warning of built.warnings) yield { type: 'warning', warning };
    const provider = this.provider;
    // Our own controller lets the idle guard stop a stalled stream; it follows the caller's signal.
    const controller = new AbortController();
    const onAbort = () => controller.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const idleMs = this.config.idleTimeoutMs;
    const idleMessage = `${provider}: the stream sent nothing for ${idleMs} ms and was closed (idleTimeoutMs)`;
    const failure: { headers?: Headers } = {};
    const accumulator = new GoogleResponseAccumulator(this.modelId);
    try {
      let stream: AsyncIterable<GoogleWireResponse>;
      try {
        stream = await guardPromise(
          this.config.client.models.generateContentStream(
            this.parameters(request, built, controller.signal, failure),
          ),
          {
            ms: idleMs,
            signal: request.signal,
            onTimeout: () => {
              controller.abort();
              return new StreamProtocolError({ provider, message: idleMessage });
            },
          },
        );
      } catch (error) {
        throw mapGoogleError(error, { ...this.errorContext(request, false), ...failure });
      }
      try {
        const guarded = guardStream(stream, {
          idleMs,
          signal: request.signal,
          onStop: () => controller.abort(),
          provider,
          idleMessage,
        });
        for await (const chunk of guarded) {
          for (const part of accumulator.push(chunk)) yield part;
        }
      } catch (error) {
        throw mapGoogleError(error, this.errorContext(request, true));
      }
      if (request.signal?.aborted)
        throw new CancelledError({
          message: `${provider}: the request was cancelled`,
          cause: request.signal.reason,
        });
      if (!accumulator.finished)
        throw new StreamProtocolError({
          provider,
          message: `${provider}: the stream ended before the model finished (no finishReason): the connection was probably cut`,
        });
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
      // Also when the consumer stops early (`break`): the connection must not stay open.
      controller.abort();
    }
    for (const part of accumulator.finishParts()) yield part;
    const response = accumulator.response({ provider, request, warnings: built.warnings });
    for (const warning of response.warnings.slice(built.warnings.length))
      yield { type: 'warning', warning };
    yield { type: 'finish', response };
  }
}
