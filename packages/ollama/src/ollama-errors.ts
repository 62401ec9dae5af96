import {
  CancelledError,
  ConnectionError,
  ContextOverflowError,
  ProviderError,
  ServerError,
  StreamProtocolError,
  ToolwireError,
  errorMessage,
  providerErrorFromStatus,
  toolCallingUnsupportedError,
} from '@toolwire/schema';

const PROVIDER = 'ollama';
const CONTEXT_OVERFLOW =
  /context (length|window|size)|input length exceeds|prompt is too long|too many tokens/i;
const SCHEMA_PROBLEM =
  /tools?\b.*(parameters|schema|function)|cannot unmarshal.*tool|invalid (json )?schema|format.*schema/i;
const STREAM_ENDED = /did not receive done/i;

export interface OllamaErrorContext {
  signal?: AbortSignal | undefined;
  /** Headers of the HTTP response that failed, when there was one (for `retry-after`). */
  headers?: { get(name: string): string | null } | undefined;
  /** Whether the failure happened while reading a stream (then transport failures are stream errors). */
  streaming?: boolean;
  /** The model asked for, to name it when it cannot take tools. */
  modelId?: string;
  /** Whether the request declared tools (only then is "does not support tools" about them). */
  hasTools?: boolean;
}

/**
 * Maps what the `ollama` package throws to the schema's error classes: its `ResponseError`
 * (`status_code` + the server's `error` text), the plain `Error` it throws for an `{"error": …}`
 * line inside a stream or a stream without its final line, fetch failures and aborts.
 */
export function mapOllamaError(error: unknown, context: OllamaErrorContext = {}): ToolwireError {
  if (ToolwireError.isInstance(error)) return error;
  if (context.signal?.aborted) {
    return new CancelledError({
      message: 'The Ollama request was aborted',
      cause: context.signal.reason ?? error,
    });
  }
  const status = statusOf(error);
  const text = errorMessage(error);
  if (status !== undefined) {
    const unsupported =
      context.hasTools && status >= 400 && status < 500
        ? toolCallingUnsupportedError({
            provider: PROVIDER,
            modelId: context.modelId,
            message: text,
            cause: error,
          })
        : undefined;
    if (unsupported) return unsupported;
    return providerErrorFromStatus(status, {
      provider: PROVIDER,
      message: `Ollama ${status}: ${text}`,
      providerData: { error: text },
      cause: error,
      headers: context.headers,
      contextOverflow: CONTEXT_OVERFLOW.test(text),
      schemaRejected: SCHEMA_PROBLEM.test(text),
      overloaded: /server busy|overloaded/i.test(text),
    });
  }
  if (!(error instanceof Error))
    return new ProviderError('server_error', {
      provider: PROVIDER,
      message: `Ollama failed: ${text}`,
      cause: error,
    });
  if (STREAM_ENDED.test(text)) {
    return new StreamProtocolError({
      provider: PROVIDER,
      message: `the Ollama stream ended before its done:true line: ${text}`,
      cause: error,
    });
  }
  if (error.name === 'AbortError')
    return new CancelledError({ message: 'The Ollama request was aborted', cause: error });
  if (error.name === 'TypeError' || error instanceof SyntaxError || hasNetworkCode(error)) {
    // fetch failed / terminated / a JSON body cut short: the transport, not the model.
    return context.streaming
      ? new StreamProtocolError({
          provider: PROVIDER,
          message: `the Ollama stream broke off: ${text}`,
          cause: error,
        })
      : new ConnectionError({
          provider: PROVIDER,
          message: `Could not get an answer from Ollama: ${text}${causeText(error)}`,
          cause: error,
        });
  }
  // The `ollama` package throws a plain Error for an `{"error": "…"}` line inside a stream: the
  // server failed while generating.
  if (CONTEXT_OVERFLOW.test(text))
    return new ContextOverflowError({
      provider: PROVIDER,
      message: `Ollama: ${text}`,
      cause: error,
    });
  return new ServerError({
    provider: PROVIDER,
    message: `Ollama: ${text}`,
    providerData: { error: text },
    cause: error,
  });
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status_code?: unknown } | null)?.status_code;
  return typeof status === 'number' ? status : undefined;
}

function hasNetworkCode(error: Error): boolean {
  const code =
    (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^(ECONN|ENOTFOUND|EPIPE|ETIMEDOUT|UND_ERR)/.test(code);
}

function causeText(error: Error): string {
  return error.cause instanceof Error ? ` (${error.cause.message})` : '';
}
