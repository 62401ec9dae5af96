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
  ContextOverflowError,
  InvalidRequestError,
  ProviderError,
  RateLimitError,
  SchemaRejectedError,
  ServerError,
  ToolwireError,
  parseRetryAfter,
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
  options: { toolNames?: readonly string[]; signal?: AbortSignal } = {},
): Error {
  if (ToolwireError.isInstance(error)) return error;
  if (error instanceof APIUserAbortError || (options.signal?.aborted && isAbortLike(error))) {
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
    return error instanceof Error ? error : new Error(String(error));
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

  if (status === 401 || type === 'authentication_error') return new AuthenticationError(base);
  if (status === 403 || type === 'permission_error')
    return new ProviderError('permission_denied', base);
  if (status === 429 || type === 'rate_limit_error') {
    const retryAfterMs = parseRetryAfter(error.headers ?? undefined);
    return new RateLimitError({ ...base, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
  }
  if (status === 529 || type === 'overloaded_error')
    return new ServerError({ ...base, overloaded: true });
  if (status === 413 || type === 'request_too_large') return new ContextOverflowError(base);
  if (status === 404 || type === 'not_found_error') return new ProviderError('not_found', base);
  if ((status !== undefined && status >= 500) || type === 'api_error' || type === 'timeout_error')
    return new ServerError(base);
  if (status === 400 || status === 422 || type === 'invalid_request_error') {
    if (CONTEXT_OVERFLOW.test(apiMessage)) return new ContextOverflowError(base);
    if (SCHEMA_PROBLEM.test(apiMessage)) {
      const toolIndex = /tools\.(\d+)/.exec(apiMessage)?.[1];
      const toolName = toolIndex !== undefined ? options.toolNames?.[Number(toolIndex)] : undefined;
      return new SchemaRejectedError({ ...base, ...(toolName !== undefined ? { toolName } : {}) });
    }
    return new InvalidRequestError(base);
  }
  return new ProviderError(status === undefined ? 'stream_protocol' : 'invalid_request', base);
}

function isAbortLike(error: unknown): boolean {
  return (
    error instanceof Error && (error.name === 'AbortError' || error instanceof APIUserAbortError)
  );
}
