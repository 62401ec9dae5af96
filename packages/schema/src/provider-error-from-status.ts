import {
  AuthenticationError,
  ContextOverflowError,
  InvalidRequestError,
  ProviderError,
  RateLimitError,
  SchemaRejectedError,
  ServerError,
  parseRetryAfter,
  type ProviderErrorOptions,
} from './provider-errors.js';

export interface ProviderErrorFromStatusOptions extends ProviderErrorOptions {
  /** Response headers, read for `retry-after` / `retry-after-ms` on a 429. */
  headers?: Parameters<typeof parseRetryAfter>[0];
  /** The provider's error says the prompt does not fit the context window. */
  contextOverflow?: boolean;
  /** The provider's error says it refused a tool or response schema (only for a 4xx). */
  schemaRejected?: boolean;
  /** The tool a schema rejection points at, when the adapter could tell. */
  toolName?: string | undefined;
  /** The provider's error says it is overloaded (503 and 529 always count as overloaded). */
  overloaded?: boolean;
}

/**
 * The schema error class for an HTTP failure, from the status and what the adapter read from the
 * provider's error body: 401 → `AuthenticationError`, 403 → `permission_denied`, 404 →
 * `not_found`, 429 → `RateLimitError` (with `retryAfterMs` from the headers), 413 or a context
 * overflow → `ContextOverflowError`, 5xx (or no error status) → `ServerError` (retryable), any
 * other 4xx → `SchemaRejectedError` when the schema was refused, else `InvalidRequestError`.
 * `status` undefined (an error event inside a stream) counts as a server failure.
 * Provider-specific reading of the body (error types, codes, wording) stays in the adapter; an
 * adapter whose error type overrides the status passes that status and the real one as
 * `statusCode` (which is what the error reports; it defaults to `status`).
 */
export function providerErrorFromStatus(
  status: number | undefined,
  options: ProviderErrorFromStatusOptions,
): ProviderError {
  const {
    headers,
    contextOverflow = false,
    schemaRejected = false,
    toolName,
    overloaded = false,
    ...rest
  } = options;
  const base: ProviderErrorOptions = { statusCode: status, ...rest };
  if (status === 401) return new AuthenticationError(base);
  if (status === 403) return new ProviderError('permission_denied', base);
  if (status === 404) return new ProviderError('not_found', base);
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(headers);
    return new RateLimitError({ ...base, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
  }
  if (status === 413 || contextOverflow) return new ContextOverflowError(base);
  if (status !== undefined && status >= 400 && status < 500) {
    if (schemaRejected)
      return new SchemaRejectedError({ ...base, ...(toolName !== undefined ? { toolName } : {}) });
    return new InvalidRequestError(base);
  }
  return new ServerError({ ...base, overloaded: overloaded || status === 503 || status === 529 });
}
