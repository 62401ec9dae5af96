import { lazyProvider, type ModelCapabilities } from '@toolwire/schema';
import OpenAI from 'openai';
import { OpenAIChatModel } from './openai-chat-model.js';
import { OpenAIResponsesModel } from './openai-responses-model.js';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const XAI_BASE_URL = 'https://api.x.ai/v1';

export interface OpenAIProviderSettings {
  /**
   * An `openai` SDK client of your own (any version this package supports), used as it is:
   * `apiKey`, `baseURL`, `organization`, `project`, `headers`, `fetch`, `maxRetries` and
   * `timeoutMs` are then the client's business. Still give `baseURL` when it is not OpenAI's, so
   * the models know which server they talk to.
   */
  client?: OpenAI;
  /**
   * Let the SDK run in a browser, where the API key is visible to the page's users (the SDK's own
   * `dangerouslyAllowBrowser`). Use a key of little worth or a server of your own in front.
   */
  dangerouslyAllowBrowser?: boolean;
  /** Default: `OPENAI_API_KEY` (`XAI_API_KEY` for xAI). Servers without auth need none. */
  apiKey?: string;
  /** Default `https://api.openai.com/v1`. For a compatible server, its `/v1` URL (e.g. `http://127.0.0.1:1234/v1`). */
  baseURL?: string;
  organization?: string;
  project?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** A fetch implementation (proxies, tests, edge runtimes). */
  fetch?: typeof globalThis.fetch;
  /**
   * The provider name the models report and whose `providerOptions` entry is merged into the
   * body: `openai` (default with OpenAI's URL), `xai`, or any label for a compatible server
   * (default `openai-compatible`).
   */
  provider?: 'openai' | 'xai' | (string & {});
  /**
   * `strict` (OpenAI's own API): `max_completion_tokens`. `compatible` (default when `baseURL` is
   * not OpenAI's): `max_tokens`, which vLLM, llama.cpp, LM Studio and xAI accept.
   */
  compatibility?: 'strict' | 'compatible';
  /** Ask for usage at the end of streams (`stream_options.include_usage`); default true. Turn off only for servers that reject it. */
  streamUsage?: boolean;
  /**
   * Retries the SDK makes on 408/409/429/5xx and connection errors. Default 0: failures come back
   * as typed errors with `retryable` and `retryAfterMs`, so the caller's loop decides and retries
   * do not multiply (the same default as the other Toolwire adapters).
   */
  maxRetries?: number;
  /** Time limit for a whole non-streamed request, ms (SDK default: 10 minutes). */
  timeoutMs?: number;
  /** A stream that sends nothing for this long fails with `StreamProtocolError` (default 60 000 ms). */
  idleTimeoutMs?: number;
  /** The schema dialect for tools: `openai` (default) or `xai` (default for xAI). */
  schemaDialect?: 'openai' | 'xai';
}

export interface OpenAIChatSettings {
  /**
   * Send tools in OpenAI strict mode (`strict: true`, every property required, optionals made
   * nullable) when a schema is eligible; others are sent non-strict with a `schema-changed`
   * warning. Calls of strict tools carry `providerMetadata[provider].nullMeansAbsent`: parse
   * them with `parseToolArguments(schema, args, { nullMeansAbsent: true })`. Default false.
   */
  strictTools?: boolean;
  /** Send `responseFormat` schemas strict when eligible (default true on OpenAI, false elsewhere). */
  strictResponseFormat?: boolean;
  /**
   * Chat Completions tool messages take only text. `user-message` (default) sends a result's
   * images in a user message right after the tool messages; `text` leaves a placeholder instead.
   * Both add an `image-as-text` warning.
   */
  imageToolResults?: 'user-message' | 'text';
  /** Overrides the provider's `idleTimeoutMs` for this model. */
  idleTimeoutMs?: number;
  /**
   * What this model can do, where the defaults are wrong (a local model without tool calling or
   * vision). With `toolCalling: false`, a request with tools fails before it is sent.
   */
  capabilities?: Partial<ModelCapabilities>;
}

export interface OpenAIResponsesSettings {
  /** As for chat models: strict function tools where the schema allows (default false). */
  strictTools?: boolean;
  /** Send `text.format` schemas strict when eligible (default true on OpenAI, false elsewhere). */
  strictResponseFormat?: boolean;
  /**
   * `store` as sent (the API's default is to store responses). With `store: false` reasoning
   * items can only be replayed with their `encrypted_content`, which is then asked for.
   */
  store?: boolean;
  /** Ask for `reasoning.encrypted_content` (default: when `store` is false). */
  encryptedReasoning?: boolean;
  /** `reasoning` as sent, e.g. `{ effort: 'low', summary: 'auto' }` (reasoning models only). */
  reasoning?: { effort?: string; summary?: string };
  /** Overrides the provider's `idleTimeoutMs` for this model. */
  idleTimeoutMs?: number;
  /** What this model can do, where the defaults are wrong. */
  capabilities?: Partial<ModelCapabilities>;
}

/** Creates models: `provider(modelId, settings?)`. */
export interface OpenAIProvider {
  (modelId: string, settings?: OpenAIChatSettings): OpenAIChatModel;
  chat(modelId: string, settings?: OpenAIChatSettings): OpenAIChatModel;
  /** A model on the Responses API (`POST /v1/responses`); Chat Completions stays the default. */
  responses(modelId: string, settings?: OpenAIResponsesSettings): OpenAIResponsesModel;
  readonly providerName: string;
  /** The underlying SDK client, for APIs this package does not wrap. */
  readonly client: OpenAI;
}

function capabilitiesFor(
  kind: 'openai' | 'xai' | 'compatible',
  streamUsage: boolean,
): ModelCapabilities {
  return {
    toolCalling: true,
    parallelToolCalls: true,
    streamingToolCalls: true,
    toolChoice: { auto: true, none: true, required: true, specific: true },
    // Sent as a following user message, not inside the tool result.
    imagesInToolResults: false,
    imagesInUserMessages: true,
    strictSchemas: kind === 'openai',
    structuredOutput: 'json-schema',
    streamingUsage: streamUsage,
  };
}

function positive(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new TypeError(`${name} must be a non-negative number (got ${String(value)})`);
  return value;
}

/**
 * An OpenAI Chat Completions provider on the official `openai` SDK. Works with OpenAI, xAI and
 * OpenAI-compatible servers (LM Studio, vLLM, llama.cpp, Ollama's `/v1`) through `baseURL`.
 */
export function createOpenAI(settings: OpenAIProviderSettings = {}): OpenAIProvider {
  const baseURL = (settings.baseURL ?? OPENAI_BASE_URL).replace(/\/+$/, '');
  const isOpenAI = baseURL === OPENAI_BASE_URL;
  const providerName =
    settings.provider ??
    (isOpenAI ? 'openai' : baseURL === XAI_BASE_URL ? 'xai' : 'openai-compatible');
  const kind = providerName === 'xai' ? 'xai' : providerName === 'openai' ? 'openai' : 'compatible';
  const compatibility = settings.compatibility ?? (kind === 'openai' ? 'strict' : 'compatible');
  if (compatibility !== 'strict' && compatibility !== 'compatible')
    throw new TypeError(
      `compatibility must be "strict" or "compatible" (got ${JSON.stringify(compatibility)})`,
    );
  const envName = kind === 'xai' ? 'XAI_API_KEY' : 'OPENAI_API_KEY';
  const apiKey = settings.apiKey ?? readEnv(envName);
  if (!apiKey && kind !== 'compatible' && !settings.client) {
    throw new TypeError(
      `${providerName}: no API key: pass createOpenAI({ apiKey }) or set ${envName}`,
    );
  }
  const streamUsage = settings.streamUsage ?? true;
  const idleTimeoutMs = positive(settings.idleTimeoutMs, 'idleTimeoutMs') ?? 60_000;
  const client =
    settings.client ??
    new OpenAI({
      // Local compatible servers usually need no key; the SDK insists on one, so send a harmless value.
      apiKey: apiKey || 'no-key',
      baseURL,
      organization: settings.organization ?? null,
      project: settings.project ?? null,
      maxRetries: positive(settings.maxRetries, 'maxRetries') ?? 0,
      ...(settings.timeoutMs !== undefined
        ? { timeout: positive(settings.timeoutMs, 'timeoutMs') }
        : {}),
      ...(settings.headers ? { defaultHeaders: settings.headers } : {}),
      ...(settings.fetch ? { fetch: settings.fetch } : {}),
      ...(settings.dangerouslyAllowBrowser ? { dangerouslyAllowBrowser: true } : {}),
    });
  const schemaDialect = settings.schemaDialect ?? (kind === 'xai' ? 'xai' : 'openai');

  const create = (modelId: string, chat: OpenAIChatSettings = {}): OpenAIChatModel => {
    if (chat.strictTools && kind === 'xai')
      throw new TypeError('strictTools: xAI has no strict function calling; leave it off');
    const imageToolResults = chat.imageToolResults ?? 'user-message';
    if (imageToolResults !== 'user-message' && imageToolResults !== 'text') {
      throw new TypeError(
        `imageToolResults must be "user-message" or "text" (got ${JSON.stringify(imageToolResults)})`,
      );
    }
    return new OpenAIChatModel(modelId, {
      client,
      providerName,
      schemaDialect,
      strictTools: chat.strictTools ?? false,
      strictResponseFormat: chat.strictResponseFormat ?? kind === 'openai',
      maxTokensField: compatibility === 'strict' ? 'max_completion_tokens' : 'max_tokens',
      streamUsage,
      imageToolResults,
      idleTimeoutMs: positive(chat.idleTimeoutMs, 'idleTimeoutMs') ?? idleTimeoutMs,
      capabilities: { ...capabilitiesFor(kind, streamUsage), ...chat.capabilities },
    });
  };
  const responses = (
    modelId: string,
    options: OpenAIResponsesSettings = {},
  ): OpenAIResponsesModel => {
    if (options.strictTools && kind === 'xai')
      throw new TypeError('strictTools: xAI has no strict function calling; leave it off');
    if (options.store !== undefined && typeof options.store !== 'boolean')
      throw new TypeError(`store must be true or false (got ${JSON.stringify(options.store)})`);
    return new OpenAIResponsesModel(modelId, {
      client,
      providerName,
      schemaDialect,
      strictTools: options.strictTools ?? false,
      strictResponseFormat: options.strictResponseFormat ?? kind === 'openai',
      store: options.store,
      encryptedReasoning: options.encryptedReasoning ?? options.store === false,
      reasoning: options.reasoning,
      idleTimeoutMs: positive(options.idleTimeoutMs, 'idleTimeoutMs') ?? idleTimeoutMs,
      capabilities: {
        ...capabilitiesFor(kind, true),
        // function_call_output takes images.
        imagesInToolResults: true,
        ...options.capabilities,
      },
    });
  };
  const provider = create as OpenAIProvider;
  Object.defineProperties(provider, {
    chat: { value: create },
    responses: { value: responses },
    providerName: { value: providerName },
    client: { value: client },
  });
  return provider;
}

export type XaiProviderSettings = Omit<OpenAIProviderSettings, 'provider' | 'schemaDialect'>;

/**
 * xAI (Grok) presets: `https://api.x.ai/v1`, `XAI_API_KEY`, the `xai` schema dialect (no
 * `additionalProperties` or length/size keywords, which xAI rejects). Whole tool calls in one
 * stream chunk, `reasoning_content`, and reasoning counted outside `completion_tokens` are handled.
 */
export function createXai(settings: XaiProviderSettings = {}): OpenAIProvider {
  return createOpenAI({
    baseURL: XAI_BASE_URL,
    compatibility: 'compatible',
    ...settings,
    provider: 'xai',
    schemaDialect: 'xai',
  });
}

// `process` does not exist in browsers and some edge runtimes.
function readEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  const value = env?.[name]?.trim();
  return value === '' ? undefined : value;
}

/** The default provider (`OPENAI_API_KEY`, `OPENAI_BASE_URL`), created on first use. */
export const openai: OpenAIProvider = lazyProvider(() => createOpenAI());

/** The default xAI provider (`XAI_API_KEY`), created on first use. */
export const xai: OpenAIProvider = lazyProvider(() => createXai());
