import {
  UsageError,
  CancelledError,
  ClientToolSearch,
  UnsupportedFeatureError,
  StreamProtocolError,
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
import { assembleResponse, readOpenAICompletion } from './openai-response.js';
import { OpenAIStreamAccumulator, type OpenAIWireChunk } from './openai-stream-accumulator.js';
import { streamOpenAI } from './openai-stream.js';
import type { OpenAIWireCompletion } from './openai-wire.js';

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
      throw new UsageError({ message: 'modelId must be a non-empty string' });
    this.modelId = modelId;
    this.provider = config.providerName;
    this.capabilities = config.capabilities;
    this.config = config;
  }

  /** The body this model would send for a request (for logging and tests); no I/O. */
  buildRequest(request: ChatRequest, options: { stream?: boolean } = {}): BuiltOpenAIRequest {
    return this.build(new ClientToolSearch(request).firstRequest, options.stream ?? false);
  }

  private build(request: ChatRequest, stream: boolean): BuiltOpenAIRequest {
    if (!this.capabilities.toolCalling && (request.tools?.length ?? 0) > 0) {
      throw new UnsupportedFeatureError({
        feature: 'toolCalling',
        message: `${this.provider} model "${this.modelId}" is configured without tool calling (capabilities.toolCalling: false), but the request has ${request.tools!.length} tool(s)`,
      });
    }
    return buildOpenAIRequest(request, { ...this.config, modelId: this.modelId }, stream);
  }

  /**
   * Chat Completions has no tool search: deferred tools are found through a search tool this
   * adapter answers itself (`ClientToolSearch`), inside this call.
   */
  async generate(request: ChatRequest): Promise<ChatResponse> {
    return ClientToolSearch.generate(request, (round) => this.generateOnce(round));
  }

  stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    return ClientToolSearch.stream(request, (round) => this.streamOnce(round));
  }

  private async generateOnce(request: ChatRequest): Promise<ChatResponse> {
    const context = {
      provider: this.provider,
      signal: request.signal,
      toolNames: (request.tools ?? []).map((tool) => tool.name),
      streaming: false,
      modelId: this.modelId,
    };
    if (request.signal?.aborted)
      throw new CancelledError({
        message: `${this.provider}: the request was cancelled before it was sent`,
      });
    const built = this.build(request, false);
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

  private responseContext(request: ChatRequest, built: BuiltOpenAIRequest) {
    return {
      provider: this.provider,
      request,
      warnings: built.warnings,
      strictToolNames: built.strictToolNames,
      strictResponseFormat: built.strictResponseFormat,
    };
  }

  private async *streamOnce(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
    if (request.signal?.aborted)
      throw new CancelledError({
        message: `${this.provider}: the request was cancelled before it was sent`,
      });
    const built = this.build(request, true);
    const { warnings, ...context } = this.responseContext(request, built);
    yield* streamOpenAI<OpenAIWireChunk>({
      provider: this.provider,
      modelId: this.modelId,
      request,
      idleTimeoutMs: this.config.idleTimeoutMs,
      warnings,
      open: async (signal) =>
        (await this.config.client.chat.completions.create(
          built.body as unknown as OpenAI.Chat.ChatCompletionCreateParamsStreaming,
          { signal, ...(request.headers ? { headers: request.headers } : {}) },
        )) as unknown as AsyncIterable<OpenAIWireChunk>,
      accumulator: new OpenAIStreamAccumulator(this.modelId),
      missingEnd: 'no finish_reason',
      context,
    });
  }
}
