import type { Anthropic } from '@anthropic-ai/sdk';
import {
  UsageError,
  CancelledError,
  ClientToolSearch,
  StreamProtocolError,
  collectStream,
  guardPromise,
  guardStream,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ChatStreamPart,
  type ChatWarning,
  type ModelCapabilities,
} from '@toolwire/schema';
import { convertToAnthropicMessages } from './anthropic-convert-messages.js';
import { mapAnthropicError } from './anthropic-errors.js';
import {
  prepareAnthropicTools,
  type AnthropicToolSearch,
  type PreparedTools,
} from './anthropic-prepare-tools.js';
import { finishAnthropicResponse } from './anthropic-response.js';
import {
  AnthropicStreamAccumulator,
  type AnthropicStreamEvent,
} from './anthropic-stream-accumulator.js';
import type { AnthropicMessage, AnthropicRequestBody } from './anthropic-wire.js';

/** `max_tokens` is required by the Messages API; this is sent when nothing else says. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;
/**
 * Above this `max_tokens` the SDK refuses a non-streaming request (it expects it to run past its
 * 10-minute limit: 60 min × max_tokens / 128 000 > 10 min), so `generate` streams instead.
 */
export const NON_STREAMING_MAX_TOKENS = 21_333;
/** A stream that sends nothing (not even `ping`) for this long is treated as dropped. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

export type AnthropicThinkingSetting =
  { type: 'enabled'; budgetTokens: number } | { type: 'adaptive' } | { type: 'disabled' };

export interface AnthropicModelSettings {
  /** Default `max_tokens` when a request does not set `maxOutputTokens` (default 4096). */
  maxOutputTokens?: number;
  /** Extended thinking. Thinking blocks come back in `reasoning` and must be resent verbatim. */
  thinking?: AnthropicThinkingSetting;
  /** Fail a stream (and a request still waiting for its first byte) after this much silence. */
  idleTimeoutMs?: number;
  /**
   * How deferred tools (`ToolSpec.deferred`) are found: Anthropic's tool search tool, `bm25`
   * (natural-language queries, the default) or `regex`; or `client`, a search tool this adapter
   * answers itself (`ClientToolSearch`), for models without tool search.
   */
  toolSearch?: AnthropicToolSearch | 'client';
  /**
   * The code execution tool whose code may call tools with `allowedCallers: ['programmatic']`
   * (programmatic tool calling; default `code_execution_20260120`).
   */
  codeExecution?: string;
}

export interface AnthropicChatModelConfig {
  client: () => Anthropic;
  settings: AnthropicModelSettings;
}

interface PreparedRequest {
  body: AnthropicRequestBody;
  prepared: PreparedTools;
  warnings: ChatWarning[];
  toolNames: string[];
}

/** A `ChatModel` over the Anthropic Messages API, through the official SDK. */
export class AnthropicChatModel implements ChatModel {
  readonly provider = 'anthropic';
  readonly capabilities: ModelCapabilities = {
    toolCalling: true,
    parallelToolCalls: true,
    streamingToolCalls: true,
    toolChoice: { auto: true, none: true, required: true, specific: true },
    imagesInToolResults: true,
    imagesInUserMessages: true,
    strictSchemas: false,
    structuredOutput: 'tool',
    streamingUsage: true,
  };

  constructor(
    readonly modelId: string,
    private readonly config: AnthropicChatModelConfig,
  ) {}

  /** The exact request body `generate`/`stream` would send (without `stream`), and its warnings. */
  buildRequest(request: ChatRequest): { body: AnthropicRequestBody; warnings: ChatWarning[] } {
    const { body, warnings } = this.prepare(
      this.config.settings.toolSearch === 'client'
        ? new ClientToolSearch(request).firstRequest
        : request,
    );
    return { body, warnings };
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    if (this.config.settings.toolSearch !== 'client') return this.generateOnce(request);
    return ClientToolSearch.generate(request, (round) => this.generateOnce(round));
  }

  stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    if (this.config.settings.toolSearch !== 'client') return this.streamOnce(request);
    return ClientToolSearch.stream(request, (round) => this.streamOnce(round));
  }

  private async generateOnce(request: ChatRequest): Promise<ChatResponse> {
    const prepared = this.prepare(request);
    throwIfAborted(request.signal);
    // The SDK refuses non-streaming requests that may run past 10 minutes (judged by max_tokens);
    // those are streamed and collected instead, which gives the same response.
    if (prepared.body.max_tokens > NON_STREAMING_MAX_TOKENS)
      return collectStream(this.streamOnce(request));
    try {
      const message = (await this.config
        .client()
        .messages.create(
          prepared.body as unknown as Anthropic.MessageCreateParamsNonStreaming,
          requestOptions(request, request.signal, prepared.prepared.betas),
        )) as unknown as AnthropicMessage;
      return finishAnthropicResponse(message, {
        modelId: this.modelId,
        prepared: prepared.prepared,
        warnings: prepared.warnings,
      });
    } catch (error) {
      throw mapAnthropicError(error, {
        toolNames: prepared.toolNames,
        ...(request.signal ? { signal: request.signal } : {}),
      });
    }
  }

  private async *streamOnce(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
    const prepared = this.prepare(request);
    throwIfAborted(request.signal);
    const idleMs = this.config.settings.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    const controller = new AbortController();
    const onAbort = () => controller.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const stall = () =>
      new StreamProtocolError({
        provider: this.provider,
        message: `Anthropic sent no response for ${idleMs} ms (stalled connection)`,
      });
    let receiving = false;
    try {
      for (const warning of prepared.warnings) yield { type: 'warning', warning };
      const events = await guardPromise(
        this.config
          .client()
          .messages.create(
            { ...prepared.body, stream: true } as unknown as Anthropic.MessageCreateParamsStreaming,
            requestOptions(request, controller.signal, prepared.prepared.betas),
          ),
        {
          ms: idleMs,
          signal: request.signal,
          onTimeout: () => {
            controller.abort();
            return stall();
          },
        },
      );
      receiving = true;
      const hidden = new Set(
        prepared.prepared.responseTool ? [prepared.prepared.responseTool.name] : [],
      );
      const accumulator = new AnthropicStreamAccumulator(hidden);
      const guarded = guardStream(events as AsyncIterable<unknown>, {
        idleMs,
        signal: request.signal,
        onStop: () => controller.abort(),
        provider: this.provider,
      });
      for await (const event of guarded) {
        for (const part of accumulator.push(event as AnthropicStreamEvent)) yield part;
        if (accumulator.done) break;
      }
      for (const part of accumulator.end()) yield part;
      // The SDK ends a stream quietly when it is aborted; tell that apart from a dropped stream.
      throwIfAborted(request.signal);
      const response = finishAnthropicResponse(accumulator.message(), {
        modelId: this.modelId,
        prepared: prepared.prepared,
        warnings: prepared.warnings,
      });
      for (const warning of response.warnings.slice(prepared.warnings.length))
        yield { type: 'warning', warning };
      yield { type: 'finish', response };
    } catch (error) {
      throw mapAnthropicError(error, {
        toolNames: prepared.toolNames,
        streaming: receiving,
        ...(request.signal ? { signal: request.signal } : {}),
      });
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
      // Also when the consumer stops early (`break`): the connection must not stay open.
      controller.abort();
    }
  }

  private prepare(request: ChatRequest): PreparedRequest {
    if (!Array.isArray(request.messages))
      throw new UsageError({ message: 'request.messages must be an array of messages' });
    const settings = this.config.settings;
    const raw = { ...(request.providerOptions?.anthropic ?? {}) };
    const thinking =
      raw.thinking !== undefined
        ? (raw.thinking as AnthropicRequestBody['thinking'])
        : thinkingParam(settings.thinking);
    delete raw.thinking;
    const thinkingOn = thinking !== undefined && thinking.type !== 'disabled';

    const prepared = prepareAnthropicTools({
      tools: request.tools,
      toolChoice: request.toolChoice,
      parallelToolCalls: request.parallelToolCalls,
      responseFormat: request.responseFormat,
      thinking: thinkingOn,
      mcpServers: request.mcpServers,
      ...(settings.toolSearch !== undefined && settings.toolSearch !== 'client'
        ? { toolSearch: settings.toolSearch }
        : {}),
      ...(settings.codeExecution !== undefined ? { codeExecution: settings.codeExecution } : {}),
    });
    const prompt = convertToAnthropicMessages(request.messages);

    const explicitMax = request.maxOutputTokens ?? settings.maxOutputTokens;
    let maxTokens = explicitMax ?? DEFAULT_MAX_OUTPUT_TOKENS;
    const budget = typeof thinking?.budget_tokens === 'number' ? thinking.budget_tokens : undefined;
    if (budget !== undefined && maxTokens <= budget) {
      if (explicitMax !== undefined) {
        throw new UsageError({
          message: `maxOutputTokens (${explicitMax}) must be greater than the thinking budget (${budget}): Anthropic counts thinking in max_tokens`,
        });
      }
      maxTokens = budget + DEFAULT_MAX_OUTPUT_TOKENS;
    }

    const body: AnthropicRequestBody = {
      model: this.modelId,
      max_tokens: maxTokens,
      ...(prompt.system !== undefined ? { system: prompt.system } : {}),
      messages: prompt.messages,
      ...(prepared.tools ? { tools: prepared.tools } : {}),
      ...(prepared.toolChoice ? { tool_choice: prepared.toolChoice } : {}),
      ...(prepared.mcpServers ? { mcp_servers: prepared.mcpServers } : {}),
      ...(prompt.container !== undefined ? { container: prompt.container } : {}),
      ...(thinking !== undefined ? { thinking } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.topP !== undefined ? { top_p: request.topP } : {}),
      ...(request.stopSequences !== undefined ? { stop_sequences: request.stopSequences } : {}),
      ...raw,
    };
    return {
      body,
      prepared,
      warnings: [...prepared.warnings, ...prompt.warnings],
      toolNames: (prepared.tools ?? []).map((tool) =>
        'name' in tool ? tool.name : `${tool.type} ${tool.mcp_server_name}`,
      ),
    };
  }
}

function thinkingParam(
  setting: AnthropicThinkingSetting | undefined,
): AnthropicRequestBody['thinking'] {
  if (!setting) return undefined;
  if (setting.type === 'enabled') return { type: 'enabled', budget_tokens: setting.budgetTokens };
  return { type: setting.type };
}

function requestOptions(
  request: ChatRequest,
  signal: AbortSignal | undefined,
  betas: readonly string[],
): Anthropic.RequestOptions {
  let headers = request.headers;
  if (betas.length > 0) {
    // The caller's own betas are kept beside the ones the request needs.
    const own = Object.entries(headers ?? {}).find(
      ([name]) => name.toLowerCase() === 'anthropic-beta',
    );
    const values = [...(own ? own[1].split(',').map((beta) => beta.trim()) : []), ...betas];
    headers = {
      ...Object.fromEntries(
        Object.entries(headers ?? {}).filter(([name]) => name.toLowerCase() !== 'anthropic-beta'),
      ),
      'anthropic-beta': [...new Set(values)].join(','),
    };
  }
  return {
    ...(signal ? { signal } : {}),
    ...(headers ? { headers } : {}),
  };
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new CancelledError({
      message: 'The Anthropic request was aborted',
      cause: signal.reason,
    });
}
