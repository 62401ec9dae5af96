import {
  UsageError,
  CancelledError,
  ClientToolSearch,
  StreamProtocolError,
  UnsupportedFeatureError,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ChatStreamPart,
  type ModelCapabilities,
} from '@toolwire/schema';
import type OpenAI from 'openai';
import { mapOpenAIError } from './openai-errors.js';
import { assembleResponse } from './openai-response.js';
import {
  buildOpenAIResponsesRequest,
  type BuiltOpenAIResponsesRequest,
  type OpenAIResponsesRequestSettings,
} from './openai-responses-request.js';
import { readOpenAIResponsesOutput, responsesFailure } from './openai-responses-response.js';
import {
  OpenAIResponsesStreamAccumulator,
  type ResponsesStreamEvent,
} from './openai-responses-stream-accumulator.js';
import { streamOpenAI } from './openai-stream.js';
import type { ResponsesWireResponse } from './openai-wire.js';

export interface OpenAIResponsesModelConfig extends Omit<
  OpenAIResponsesRequestSettings,
  'modelId'
> {
  client: OpenAI;
  idleTimeoutMs: number;
  capabilities: ModelCapabilities;
  /** `hosted`: the API's `tool_search`; `client`: `ClientToolSearch` answered by the adapter. */
  toolSearch: 'hosted' | 'client';
}

/**
 * A `ChatModel` on OpenAI's Responses API (`POST /v1/responses`): function tools, tool choice,
 * parallel calls, `function_call_output` follow-ups, streaming events, reasoning items replayed
 * verbatim on the next turn, structured output (`text.format`), usage and errors.
 */
export class OpenAIResponsesModel implements ChatModel {
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  private readonly config: OpenAIResponsesModelConfig;

  constructor(modelId: string, config: OpenAIResponsesModelConfig) {
    if (typeof modelId !== 'string' || modelId.trim() === '')
      throw new UsageError({ message: 'modelId must be a non-empty string' });
    this.modelId = modelId;
    this.provider = config.providerName;
    this.capabilities = config.capabilities;
    this.config = config;
  }

  /** The body this model would send for a request (for logging and tests); no I/O. */
  buildRequest(
    request: ChatRequest,
    options: { stream?: boolean } = {},
  ): BuiltOpenAIResponsesRequest {
    return this.build(
      this.config.toolSearch === 'client' ? new ClientToolSearch(request).firstRequest : request,
      options.stream ?? false,
    );
  }

  private build(request: ChatRequest, stream: boolean): BuiltOpenAIResponsesRequest {
    if (!this.capabilities.toolCalling && (request.tools?.length ?? 0) > 0) {
      throw new UnsupportedFeatureError({
        feature: 'toolCalling',
        message: `${this.provider} model "${this.modelId}" is configured without tool calling (capabilities.toolCalling: false), but the request has ${request.tools!.length} tool(s)`,
      });
    }
    return buildOpenAIResponsesRequest(request, { ...this.config, modelId: this.modelId }, stream);
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    if (this.config.toolSearch === 'hosted') return this.generateOnce(request);
    return ClientToolSearch.generate(request, (round) => this.generateOnce(round));
  }

  stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    if (this.config.toolSearch === 'hosted') return this.streamOnce(request);
    return ClientToolSearch.stream(request, (round) => this.streamOnce(round));
  }

  private async generateOnce(request: ChatRequest): Promise<ChatResponse> {
    if (request.signal?.aborted)
      throw new CancelledError({
        message: `${this.provider}: the request was cancelled before it was sent`,
      });
    const built = this.build(request, false);
    let response: ResponsesWireResponse;
    try {
      response = (await this.config.client.responses.create(
        built.body as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming,
        {
          ...(request.signal ? { signal: request.signal } : {}),
          ...(request.headers ? { headers: request.headers } : {}),
        },
      )) as unknown as ResponsesWireResponse;
    } catch (error) {
      throw mapOpenAIError(error, {
        provider: this.provider,
        signal: request.signal,
        toolNames: (request.tools ?? []).map((tool) => tool.name),
        streaming: false,
        modelId: this.modelId,
      });
    }
    if (!response || !Array.isArray(response.output)) {
      throw new StreamProtocolError({
        provider: this.provider,
        message: `${this.provider}: the answer has no "output" array`,
        providerData: response,
      });
    }
    if (response.status === 'failed') throw responsesFailure(this.provider, response);
    return assembleResponse(readOpenAIResponsesOutput(response, this.modelId), {
      provider: this.provider,
      request,
      warnings: built.warnings,
      strictToolNames: built.strictToolNames,
      strictResponseFormat: built.strictResponseFormat,
    });
  }

  private async *streamOnce(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
    if (request.signal?.aborted)
      throw new CancelledError({
        message: `${this.provider}: the request was cancelled before it was sent`,
      });
    const built = this.build(request, true);
    yield* streamOpenAI<ResponsesStreamEvent>({
      provider: this.provider,
      modelId: this.modelId,
      request,
      idleTimeoutMs: this.config.idleTimeoutMs,
      warnings: built.warnings,
      open: async (signal) =>
        (await this.config.client.responses.create(
          built.body as unknown as OpenAI.Responses.ResponseCreateParamsStreaming,
          { signal, ...(request.headers ? { headers: request.headers } : {}) },
        )) as unknown as AsyncIterable<ResponsesStreamEvent>,
      accumulator: new OpenAIResponsesStreamAccumulator(this.modelId, this.provider),
      missingEnd: 'no response.completed',
      context: {
        strictToolNames: built.strictToolNames,
        strictResponseFormat: built.strictResponseFormat,
      },
    });
  }
}
