import {
  CancelledError,
  ConnectionError,
  ProviderError,
  StreamProtocolError,
  ToolwireError,
  errorMessage,
  providerErrorFromStatus,
  toolCallingUnsupportedError,
} from '@toolwire/schema';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';

export interface ErrorContext {
  provider: string;
  /** The caller's signal: once it is aborted, whatever failed is reported as a cancellation. */
  signal: AbortSignal | undefined;
  /** Tool names in request order, to name the tool a schema error points at (`tools[2]`). */
  toolNames: readonly string[];
  /** Whether the failure happened while reading a stream. */
  streaming: boolean;
  /** The model asked for, to name it when it cannot take tools. */
  modelId?: string;
}

const CONTEXT_OVERFLOW =
  /context[_ ]length|context window|maximum context|prompt is too long|too many tokens|exceeds the context|reduce the length of the messages|input length exceeds/i;
const SCHEMA_REJECTED =
  /invalid schema|json schema|invalid_function_parameters|function parameters|response_format|is not a valid.*schema|strict mode/i;

/** The provider's error object (`{ message, type, code, param }`) from an SDK error. */
function errorFields(error: APIError): {
  message: string;
  type?: string;
  code?: string;
  param?: string;
} {
  const body = (error.error ?? {}) as Record<string, unknown>;
  const message = typeof body.message === 'string' ? body.message : error.message;
  return {
    message,
    ...(typeof body.type === 'string' ? { type: body.type } : {}),
    ...(typeof body.code === 'string' ? { code: body.code } : {}),
    ...(typeof body.param === 'string' ? { param: body.param } : {}),
  };
}

function schemaToolName(
  fields: { message: string; param?: string },
  toolNames: readonly string[],
): string | undefined {
  const indexed =
    /tools\[(\d+)\]/.exec(fields.param ?? '') ?? /tools\[(\d+)\]/.exec(fields.message);
  if (indexed) return toolNames[Number(indexed[1])];
  const named = /function '([^']+)'/.exec(fields.message);
  return named && toolNames.includes(named[1]!) ? named[1] : undefined;
}

/** Maps anything the SDK (or fetch) threw to one of the schema's error classes. */
export function mapOpenAIError(error: unknown, context: ErrorContext): ToolwireError {
  if (context.signal?.aborted || error instanceof APIUserAbortError) {
    return new CancelledError({
      message: `${context.provider}: the request was cancelled`,
      cause: error,
    });
  }
  if (ToolwireError.isInstance(error)) return error;
  const provider = context.provider;
  if (error instanceof APIConnectionTimeoutError) {
    return new ProviderError('timeout', {
      provider,
      message: `${provider}: the request timed out`,
      retryable: true,
      cause: error,
    });
  }
  if (error instanceof APIConnectionError) {
    const reason = error.cause ? `: ${errorMessage(error.cause)}` : '';
    if (context.streaming)
      return new StreamProtocolError({
        provider,
        message: `${provider}: the connection broke while streaming${reason}`,
        cause: error,
      });
    return new ConnectionError({
      provider,
      message: `${provider}: could not reach the server${reason}`,
      cause: error,
    });
  }
  if (error instanceof APIError) {
    const fields = errorFields(error);
    const status = error.status;
    const unsupported =
      status !== undefined && status >= 400 && status < 500 && context.toolNames.length > 0
        ? toolCallingUnsupportedError({
            provider,
            modelId: context.modelId,
            message: fields.message,
            cause: error,
          })
        : undefined;
    if (unsupported) return unsupported;
    const base = {
      provider,
      message: `${provider}: ${status ? `${status} ` : ''}${fields.message}`,
      providerData: error.error,
      cause: error,
    };
    const kind = fields.type ?? fields.code ?? '';
    // The error type decides when the status alone would not (or there is none: a stream event).
    const effectiveStatus =
      kind === 'invalid_api_key' || kind === 'authentication_error'
        ? 401
        : /rate_limit/.test(kind)
          ? 429
          : status;
    const schemaRejected =
      SCHEMA_REJECTED.test(`${fields.code ?? ''} ${fields.param ?? ''} ${fields.message}`) ||
      /^tools\[\d+\]\.function\.parameters/.test(fields.param ?? '');
    // No status (an error event inside a stream): the server failed.
    return providerErrorFromStatus(effectiveStatus, {
      ...base,
      statusCode: status,
      headers: error.headers ?? undefined,
      contextOverflow:
        fields.code === 'context_length_exceeded' || CONTEXT_OVERFLOW.test(fields.message),
      schemaRejected,
      toolName: schemaRejected ? schemaToolName(fields, context.toolNames) : undefined,
      overloaded: /overloaded/i.test(`${kind} ${fields.message}`),
    });
  }
  if (error instanceof SyntaxError) {
    return new StreamProtocolError({
      provider,
      message: `${provider}: the server sent something that is not valid JSON (${error.message})`,
      cause: error,
    });
  }
  if (context.streaming) {
    return new StreamProtocolError({
      provider,
      message: `${provider}: the stream broke: ${errorMessage(error)}`,
      cause: error,
    });
  }
  return new ConnectionError({
    provider,
    message: `${provider}: ${errorMessage(error)}`,
    cause: error,
  });
}
