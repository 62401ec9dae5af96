import { ToolwireError } from './toolwire-error.js';

/**
 * Normalised provider failures. Every adapter maps its vendor's errors (HTTP status, error
 * bodies, stream `error` events) to exactly one of these, so callers handle one taxonomy.
 */
export type ProviderErrorCode =
  | 'authentication'
  | 'permission_denied'
  | 'rate_limited'
  | 'context_overflow'
  | 'schema_rejected'
  | 'invalid_request'
  | 'not_found'
  | 'server_error'
  | 'overloaded'
  | 'connection'
  | 'timeout'
  | 'stream_protocol'
  | 'refusal'
  | 'unsupported';

export interface ProviderErrorOptions {
  message: string;
  provider: string;
  statusCode?: number;
  /** Whether the same request may succeed if sent again later. */
  retryable?: boolean;
  /** The provider's own error body or event, for debugging. */
  providerData?: unknown;
  cause?: unknown;
}

export class ProviderError extends ToolwireError {
  override readonly code: ProviderErrorCode;
  readonly provider: string;
  readonly statusCode: number | undefined;
  readonly retryable: boolean;
  readonly providerData: unknown;
  constructor(code: ProviderErrorCode, options: ProviderErrorOptions) {
    super(code, options);
    this.name = 'ProviderError';
    this.code = code;
    this.provider = options.provider;
    this.statusCode = options.statusCode;
    this.retryable = options.retryable ?? false;
    this.providerData = options.providerData;
  }

  static isProviderError(error: unknown): error is ProviderError {
    return ToolwireError.isInstance(error) && 'provider' in error && 'retryable' in error;
  }
}

export class AuthenticationError extends ProviderError {
  constructor(options: ProviderErrorOptions) {
    super('authentication', options);
    this.name = 'AuthenticationError';
  }
}

export class RateLimitError extends ProviderError {
  /** How long the provider asked us to wait, when it said. */
  readonly retryAfterMs: number | undefined;
  constructor(options: ProviderErrorOptions & { retryAfterMs?: number }) {
    super('rate_limited', { ...options, retryable: true });
    this.name = 'RateLimitError';
    this.retryAfterMs = options.retryAfterMs;
  }
}

export class ContextOverflowError extends ProviderError {
  constructor(options: ProviderErrorOptions) {
    super('context_overflow', options);
    this.name = 'ContextOverflowError';
  }
}

/** The provider refused a tool or response schema. `toolName` is set when it can be told. */
export class SchemaRejectedError extends ProviderError {
  readonly toolName: string | undefined;
  constructor(options: ProviderErrorOptions & { toolName?: string }) {
    super('schema_rejected', options);
    this.name = 'SchemaRejectedError';
    this.toolName = options.toolName;
  }
}

export class ServerError extends ProviderError {
  constructor(options: ProviderErrorOptions & { overloaded?: boolean }) {
    super(options.overloaded ? 'overloaded' : 'server_error', { ...options, retryable: true });
    this.name = 'ServerError';
  }
}

export class ConnectionError extends ProviderError {
  constructor(options: ProviderErrorOptions) {
    super('connection', { ...options, retryable: true });
    this.name = 'ConnectionError';
  }
}

/** A stream ended early, went silent, or sent something that cannot be parsed. */
export class StreamProtocolError extends ProviderError {
  constructor(options: ProviderErrorOptions) {
    super('stream_protocol', options);
    this.name = 'StreamProtocolError';
  }
}

export class InvalidRequestError extends ProviderError {
  constructor(options: ProviderErrorOptions) {
    super('invalid_request', options);
    this.name = 'InvalidRequestError';
  }
}

export class UnsupportedFeatureError extends ToolwireError {
  readonly feature: string;
  /** The model that lacks the feature, when known. */
  readonly modelId: string | undefined;
  constructor(options: { feature: string; message: string; modelId?: string; cause?: unknown }) {
    super('unsupported', options);
    this.name = 'UnsupportedFeatureError';
    this.feature = options.feature;
    this.modelId = options.modelId;
  }
}

/**
 * How servers say a model cannot take tools: Ollama (native and `/v1`) "<model> does not support
 * tools", vLLM "\"auto\" tool choice requires --enable-auto-tool-choice", llama.cpp "tools param
 * requires --jinja flag", the Gemini API "Function calling is not enabled for models/gemma-…",
 * and the generic "tools are not supported" family.
 */
const TOOLS_UNSUPPORTED =
  /does not support (tools|tool calling|function calling)|tool choice requires --enable-auto-tool-choice|tools param requires --jinja|function calling is not enabled|(tools|tool use|tool calling|function calling) (is|are) not supported/i;

/**
 * The `UnsupportedFeatureError` (feature `toolCalling`) for a provider's refusal of a request
 * with tools, or undefined when the message says something else. Agents read it as "fall back to
 * prompt-based tool calling" (`toolCalling: 'auto'`).
 */
export function toolCallingUnsupportedError(options: {
  provider: string;
  modelId: string | undefined;
  message: string;
  cause?: unknown;
}): UnsupportedFeatureError | undefined {
  if (!TOOLS_UNSUPPORTED.test(options.message)) return undefined;
  const model = options.modelId !== undefined ? `model "${options.modelId}"` : 'the model';
  return new UnsupportedFeatureError({
    feature: 'toolCalling',
    modelId: options.modelId,
    message: `${options.provider}: ${model} does not support tool calling (the server said: ${options.message})`,
    cause: options.cause,
  });
}

/**
 * Parses a `retry-after` / `retry-after-ms` header value into milliseconds.
 * Accepts seconds ("2", "1.5"), milliseconds (from `retry-after-ms`) or an HTTP date.
 */
export function parseRetryAfter(
  headers: { get(name: string): string | null } | Record<string, string | undefined> | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const get = (name: string): string | null | undefined =>
    typeof (headers as { get?: unknown }).get === 'function'
      ? (headers as { get(name: string): string | null }).get(name)
      : (headers as Record<string, string | undefined>)[name];
  const ms = get('retry-after-ms');
  if (ms != null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = get('retry-after');
  if (value == null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.round(seconds * 1000));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
