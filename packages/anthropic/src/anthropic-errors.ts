import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import {
  AuthenticationError,
  CancelledError,
  ConnectionError,
  ProviderError,
  StreamProtocolError,
  ToolwireError,
  errorMessage,
  providerErrorFromStatus,
} from '@toolwire/schema';

const PROVIDER = 'anthropic';
const CONTEXT_OVERFLOW =
  /prompt is too long|context (window|length)|too many (input )?tokens|exceeds? .*(context|token limit)/i;
const SCHEMA_PROBLEM = /input_schema|json ?schema|tools\.\d+/i;

/**
 * Maps anything the Anthropic SDK throws (HTTP errors, stream `error` events, connection
 * failures, aborts) to the schema's error classes. `toolNames` are the request's tools in the
 * order sent, so a rejection that points at `tools.N` names the tool.
 */
export function mapAnthropicError(
  error: unknown,
  options: {
    toolNames?: readonly string[];
    signal?: AbortSignal;
    /** The body was being read as a stream: a transport failure is then a broken stream. */
    streaming?: boolean;
  } = {},
): ToolwireError {
  if (ToolwireError.isInstance(error)) return error;
  if (error instanceof APIUserAbortError || options.signal?.aborted) {
    return new CancelledError({
      message: 'The Anthropic request was aborted',
      cause: options.signal?.reason ?? error,
    });
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new ProviderError('timeout', {
      provider: PROVIDER,
      message: `Anthropic request timed out: ${error.message}`,
      retryable: true,
      cause: error,
    });
  }
  if (error instanceof APIConnectionError) {
    return new ConnectionError({
      provider: PROVIDER,
      message: `Could not reach Anthropic: ${error.message}`,
      cause: error,
    });
  }
  if (!(error instanceof APIError)) {
    if (error instanceof Error && /could not resolve authentication method/i.test(error.message)) {
      return new AuthenticationError({
        provider: PROVIDER,
        message: `Anthropic: no API key (pass apiKey or set ANTHROPIC_API_KEY): ${error.message}`,
        cause: error,
      });
    }
    if (error instanceof SyntaxError) {
      return new ProviderError('stream_protocol', {
        provider: PROVIDER,
        message: `Anthropic sent data that is not valid JSON: ${error.message}`,
        cause: error,
      });
    }
    // Neither an SDK nor a Toolwire error: the transport failed (a body cut short, "terminated").
    return options.streaming
      ? new StreamProtocolError({
          provider: PROVIDER,
          message: `the Anthropic stream broke off: ${errorMessage(error)}`,
          cause: error,
        })
      : new ConnectionError({
          provider: PROVIDER,
          message: `the Anthropic response broke off: ${errorMessage(error)}`,
          cause: error,
        });
  }

  const status = error.status;
  const body = error.error as { error?: { type?: string; message?: string } } | undefined;
  const type = error.type ?? body?.error?.type ?? undefined;
  const apiMessage = error.apiMessage ?? body?.error?.message ?? error.message;
  const message = `Anthropic ${status ?? 'stream'} ${type ?? 'error'}: ${apiMessage}`;
  const base = {
    provider: PROVIDER,
    message,
    providerData: error.error,
    cause: error,
    ...(status !== undefined ? { statusCode: status } : {}),
  };

  // The error type (also sent in stream `error` events, which have no status) decides first.
  const routed = (type !== undefined ? TYPE_STATUS[type] : undefined) ?? status;
  if (routed === undefined) return new ProviderError('stream_protocol', base);
  const toolIndex = /tools\.(\d+)/.exec(apiMessage)?.[1];
  return providerErrorFromStatus(routed, {
    ...base,
    statusCode: status,
    headers: error.headers ?? undefined,
    contextOverflow: routed < 500 && CONTEXT_OVERFLOW.test(apiMessage),
    schemaRejected: SCHEMA_PROBLEM.test(apiMessage),
    toolName: toolIndex !== undefined ? options.toolNames?.[Number(toolIndex)] : undefined,
  });
}

/** The HTTP status each Anthropic error type stands for. */
const TYPE_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};
