import { lazyProvider, type ModelCapabilities } from '@toolwire/schema';
import { GoogleGenAI, type GenerateContentConfig, type GoogleGenAIOptions } from '@google/genai';
import { GoogleChatModel } from './google-chat-model.js';

export const GOOGLE_BASE_URL = 'https://generativelanguage.googleapis.com';

export interface GoogleProviderSettings {
  /**
   * A `@google/genai` client of your own, used as it is: `apiKey`, `baseURL`, `apiVersion`,
   * `vertex`, `headers` and `timeoutMs` are then the client's business.
   */
  client?: GoogleGenAI;
  /** Default: `GEMINI_API_KEY`, else `GOOGLE_API_KEY`. Vertex AI uses Google credentials instead. */
  apiKey?: string;
  /**
   * The API root the SDK appends `/<apiVersion>/models/…` to; default
   * `https://generativelanguage.googleapis.com` (proxies, gateways, the fake server in tests).
   */
  baseURL?: string;
  /** The SDK's default is `v1`; `v1beta` reaches preview features. */
  apiVersion?: string;
  /** Vertex AI through the same SDK: `{ project, location }` (credentials from Google auth). */
  vertex?: { project?: string; location?: string };
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** A fetch implementation (proxies, tests). */
  fetch?: typeof globalThis.fetch;
  /** Time limit for a whole request, ms (the SDK's `httpOptions.timeout`). */
  timeoutMs?: number;
  /** A stream that sends nothing for this long fails with `StreamProtocolError` (default 60 000 ms). */
  idleTimeoutMs?: number;
  /** The provider name the models report and whose `providerOptions` entry is merged; default `google`. */
  provider?: string;
}

export interface GoogleModelSettings {
  /** Send function calling mode `VALIDATED` instead of `AUTO` when the tool choice is auto. */
  validatedFunctionCalls?: boolean;
  /** `thinkingConfig` as sent, e.g. `{ includeThoughts: true }` to receive thought summaries. */
  thinking?: GenerateContentConfig['thinkingConfig'];
  /** Overrides the provider's `idleTimeoutMs`. */
  idleTimeoutMs?: number;
  /** What this model can do, where the defaults are wrong (a model without function calling). */
  capabilities?: Partial<ModelCapabilities>;
}

export interface GoogleProvider {
  (modelId: string, settings?: GoogleModelSettings): GoogleChatModel;
  readonly providerName: string;
  /** The underlying SDK client, for APIs this package does not wrap. */
  readonly client: GoogleGenAI;
}

const CAPABILITIES: ModelCapabilities = {
  toolCalling: true,
  parallelToolCalls: true,
  streamingToolCalls: false,
  toolChoice: { auto: true, none: true, required: true, specific: true },
  // Images of a result are sent beside its functionResponse, in the same user turn.
  imagesInToolResults: true,
  imagesInUserMessages: true,
  strictSchemas: false,
  structuredOutput: 'json-schema',
  streamingUsage: true,
};

function nonNegative(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new TypeError(`${name} must be a non-negative number (got ${String(value)})`);
  return value;
}

function readEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  const value = env?.[name]?.trim();
  return value === '' ? undefined : value;
}

/** A Gemini provider on the official `@google/genai` SDK (Gemini API, or Vertex AI with `vertex`). */
export function createGoogle(settings: GoogleProviderSettings = {}): GoogleProvider {
  const apiKey = settings.apiKey ?? readEnv('GEMINI_API_KEY') ?? readEnv('GOOGLE_API_KEY');
  if (!apiKey && !settings.vertex && !settings.client)
    throw new TypeError(
      'google: no API key: pass createGoogle({ apiKey }) or set GEMINI_API_KEY (or use vertex: { project, location })',
    );
  const idleTimeoutMs = nonNegative(settings.idleTimeoutMs, 'idleTimeoutMs') ?? 60_000;
  const timeout = nonNegative(settings.timeoutMs, 'timeoutMs');
  const options: GoogleGenAIOptions = {
    ...(settings.vertex
      ? { vertexai: true, project: settings.vertex.project, location: settings.vertex.location }
      : { apiKey }),
    ...(settings.apiVersion ? { apiVersion: settings.apiVersion } : {}),
    httpOptions: {
      ...(settings.baseURL ? { baseUrl: settings.baseURL.replace(/\/+$/, '') } : {}),
      ...(settings.headers ? { headers: settings.headers } : {}),
      ...(timeout !== undefined ? { timeout } : {}),
    },
  };
  const client = settings.client ?? new GoogleGenAI(options);
  const providerName = settings.provider ?? 'google';
  const create = (modelId: string, model: GoogleModelSettings = {}): GoogleChatModel =>
    new GoogleChatModel(modelId, {
      client,
      providerName,
      validatedFunctionCalls: model.validatedFunctionCalls ?? false,
      thinking: model.thinking,
      idleTimeoutMs: nonNegative(model.idleTimeoutMs, 'idleTimeoutMs') ?? idleTimeoutMs,
      capabilities: { ...CAPABILITIES, ...model.capabilities },
      fetch: settings.fetch,
    });
  const provider = create as GoogleProvider;
  Object.defineProperties(provider, {
    providerName: { value: providerName },
    client: { value: client },
  });
  return provider;
}

/** The default provider (`GEMINI_API_KEY` or `GOOGLE_API_KEY`), created on first use. */
export const google: GoogleProvider = lazyProvider(() => createGoogle());
