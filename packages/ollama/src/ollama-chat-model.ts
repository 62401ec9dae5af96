import {
  UsageError,
  CancelledError,
  ClientToolSearch,
  UnsupportedFeatureError,
  StreamProtocolError,
  normalizeToolSchema,
  guardPromise,
  guardStream,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ChatStreamPart,
  type ChatWarning,
  type JsonSchema,
  type ModelCapabilities,
} from '@toolwire/schema';
import {
  Ollama,
  type ChatRequest as OllamaSdkChatRequest,
  type ChatResponse as OllamaSdkChatResponse,
} from 'ollama/browser';
import { convertToOllamaMessages } from './ollama-convert-messages.js';
import { mapOllamaError } from './ollama-errors.js';
import { checkedNdjson } from './ollama-ndjson-check.js';
import { prepareOllamaTools } from './ollama-prepare-tools.js';
import { finishOllamaResponse } from './ollama-response.js';
import { OllamaStreamAccumulator } from './ollama-stream-accumulator.js';
import type { OllamaChatChunk, OllamaRequestBody } from './ollama-wire.js';

/**
 * A stream that sends nothing for this long is treated as dropped. Generous, because a local
 * server may first load the model from disk before the first line.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

export interface OllamaModelSettings {
  /** Fail a stream (and a stream request still waiting for its first line) after this much silence. */
  idleTimeoutMs?: number;
  /** How long the server keeps the model loaded after the request (`keep_alive`, e.g. '5m' or 0). */
  keepAlive?: string | number;
  /** Ask thinking models to think (`think`); the thinking comes back in `reasoning`. */
  think?: boolean | 'low' | 'medium' | 'high';
  /** Raw Ollama model options (`num_ctx`, `seed`, …); request fields such as temperature win. */
  options?: Record<string, unknown>;
}

export interface OllamaChatModelConfig {
  host: string | undefined;
  headers: Record<string, string> | undefined;
  fetch: typeof fetch | undefined;
  settings: OllamaModelSettings;
}

interface PreparedRequest {
  body: OllamaRequestBody;
  warnings: ChatWarning[];
  responseSchema?: JsonSchema;
}

/** A `ChatModel` over Ollama's `/api/chat`, through the official `ollama` package. */
export class OllamaChatModel implements ChatModel {
  readonly provider = 'ollama';
  readonly capabilities: ModelCapabilities = {
    toolCalling: true,
    parallelToolCalls: true,
    streamingToolCalls: true,
    // Ollama ignores tool choice: only `auto` is what the server does; the rest is checked after the fact.
    toolChoice: { auto: true, none: false, required: false, specific: false },
    imagesInToolResults: false,
    imagesInUserMessages: true,
    strictSchemas: false,
    structuredOutput: 'json-schema',
    streamingUsage: true,
  };

  constructor(
    readonly modelId: string,
    private readonly config: OllamaChatModelConfig,
  ) {}

  /** The exact request body `generate` would send (`stream: false`), and its warnings. */
  buildRequest(request: ChatRequest): { body: OllamaRequestBody; warnings: ChatWarning[] } {
    const { body, warnings } = this.prepare(new ClientToolSearch(request).firstRequest, false);
    return { body, warnings };
  }

  /**
   * Ollama has no tool search: deferred tools are found through a search tool this adapter
   * answers itself (`ClientToolSearch`), inside this call.
   */
  async generate(request: ChatRequest): Promise<ChatResponse> {
    return ClientToolSearch.generate(request, (round) => this.generateOnce(round));
  }

  stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    return ClientToolSearch.stream(request, (round) => this.streamOnce(round));
  }

  private async generateOnce(request: ChatRequest): Promise<ChatResponse> {
    const prepared = this.prepare(request, false);
    throwIfAborted(request.signal);
    const transport = this.transport(request, request.signal, false);
    try {
      const response = await guardPromise(
        transport.client.chat(prepared.body as unknown as OllamaSdkChatRequest & { stream: false }),
        { signal: request.signal },
      );
      const accumulator = new OllamaStreamAccumulator();
      accumulator.push(response as unknown as OllamaChatChunk);
      if (!accumulator.done) accumulator.push({ done: true });
      return this.finish(accumulator, request, prepared);
    } catch (error) {
      throw mapOllamaError(error, {
        signal: request.signal,
        headers: transport.lastHeaders(),
        modelId: this.modelId,
        hasTools: (request.tools?.length ?? 0) > 0,
      });
    }
  }

  private async *streamOnce(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
    const prepared = this.prepare(request, true);
    throwIfAborted(request.signal);
    const idleMs = this.config.settings.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    const controller = new AbortController();
    const onAbort = () => controller.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const transport = this.transport(request, controller.signal, true);
    let receiving = false;
    try {
      for (const warning of prepared.warnings) yield { type: 'warning', warning };
      const lines = await guardPromise(
        transport.client.chat(prepared.body as unknown as OllamaSdkChatRequest & { stream: true }),
        {
          ms: idleMs,
          signal: request.signal,
          onTimeout: () => {
            controller.abort();
            return new StreamProtocolError({
              provider: this.provider,
              message: `Ollama sent no response for ${idleMs} ms (stalled connection)`,
            });
          },
        },
      );
      receiving = true;
      const accumulator = new OllamaStreamAccumulator();
      const guarded = guardStream(lines as AsyncIterable<OllamaSdkChatResponse>, {
        idleMs,
        signal: request.signal,
        onStop: () => controller.abort(),
        provider: this.provider,
      });
      for await (const line of guarded) {
        for (const part of accumulator.push(line as unknown as OllamaChatChunk)) yield part;
        if (accumulator.done) break;
      }
      throwIfAborted(request.signal);
      const response = this.finish(accumulator, request, prepared);
      for (const warning of response.warnings.slice(prepared.warnings.length))
        yield { type: 'warning', warning };
      yield { type: 'finish', response };
    } catch (error) {
      throw mapOllamaError(error, {
        signal: request.signal,
        headers: transport.lastHeaders(),
        streaming: receiving,
        modelId: this.modelId,
        hasTools: (request.tools?.length ?? 0) > 0,
      });
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
      // Also when the consumer stops early (`break`): the connection must not stay open.
      controller.abort();
    }
  }

  private finish(
    accumulator: OllamaStreamAccumulator,
    request: ChatRequest,
    prepared: PreparedRequest,
  ): ChatResponse {
    return finishOllamaResponse(accumulator.result(), {
      modelId: this.modelId,
      warnings: prepared.warnings,
      toolChoice: request.toolChoice,
      parallelToolCalls: request.parallelToolCalls,
      ...(prepared.responseSchema ? { responseSchema: prepared.responseSchema } : {}),
    });
  }

  /**
   * A client per request: the `ollama` package takes no per-request signal or headers, so they
   * go in through its `fetch` hook, which also keeps the response headers (for `retry-after`) and
   * checks every NDJSON line of a stream (the package would skip a line that is not JSON).
   */
  private transport(request: ChatRequest, signal: AbortSignal | undefined, streaming: boolean) {
    let headers: Headers | undefined;
    const baseFetch = this.config.fetch ?? globalThis.fetch;
    const client = new Ollama({
      ...(this.config.host !== undefined ? { host: this.config.host } : {}),
      headers: { ...this.config.headers, ...request.headers },
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        const signals = [init?.signal, signal].filter((s): s is AbortSignal => s != null);
        const response = await baseFetch(input, {
          ...init,
          ...(signals.length > 0 ? { signal: AbortSignal.any(signals) } : {}),
        });
        headers = response.headers;
        if (!streaming || !response.ok || !response.body) return response;
        return new Response(response.body.pipeThrough(checkedNdjson()), {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
      },
    });
    return { client, lastHeaders: () => headers };
  }

  private prepare(request: ChatRequest, stream: boolean): PreparedRequest {
    if (!Array.isArray(request.messages))
      throw new UsageError({ message: 'request.messages must be an array of messages' });
    if ((request.mcpServers?.length ?? 0) > 0)
      throw new UnsupportedFeatureError({
        feature: 'mcpServers',
        message:
          'Ollama cannot call remote MCP servers for the model (request.mcpServers); connect them with @toolwire/mcp and pass their tools instead',
      });
    const settings = this.config.settings;
    const tools = prepareOllamaTools({
      tools: request.tools,
      toolChoice: request.toolChoice,
      messages: request.messages,
    });
    const prompt = convertToOllamaMessages(request.messages);
    const warnings = [...tools.warnings, ...prompt.warnings];

    let format: Record<string, unknown> | undefined;
    let responseSchema: JsonSchema | undefined;
    if (request.responseFormat) {
      const converted = normalizeToolSchema(request.responseFormat.schema, {
        toolName: request.responseFormat.name ?? 'response',
      });
      format = converted.schema;
      responseSchema = request.responseFormat.schema;
      for (const change of converted.changes) {
        warnings.push({
          type: 'schema-changed',
          pointer: change.pointer,
          message: `responseFormat: ${change.message}`,
        });
      }
    }

    const raw = { ...(request.providerOptions?.ollama ?? {}) };
    const rawOptions = (raw.options ?? {}) as Record<string, unknown>;
    delete raw.options;
    const options: Record<string, unknown> = {
      ...settings.options,
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.topP !== undefined ? { top_p: request.topP } : {}),
      ...(request.maxOutputTokens !== undefined ? { num_predict: request.maxOutputTokens } : {}),
      ...(request.stopSequences !== undefined ? { stop: request.stopSequences } : {}),
      ...rawOptions,
    };
    const body: OllamaRequestBody = {
      model: this.modelId,
      messages: prompt.messages,
      ...(tools.tools ? { tools: tools.tools } : {}),
      ...(format ? { format } : {}),
      stream,
      ...(settings.think !== undefined ? { think: settings.think } : {}),
      ...(settings.keepAlive !== undefined ? { keep_alive: settings.keepAlive } : {}),
      ...(Object.keys(options).length > 0 ? { options } : {}),
      ...raw,
    };
    return { body, warnings, ...(responseSchema ? { responseSchema } : {}) };
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new CancelledError({ message: 'The Ollama request was aborted', cause: signal.reason });
}
