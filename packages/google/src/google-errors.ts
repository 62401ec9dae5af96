import {
  CancelledError,
  ConnectionError,
  StreamProtocolError,
  ToolwireError,
  errorMessage,
  parseRetryAfter,
  providerErrorFromStatus,
  toolCallingUnsupportedError,
} from '@toolwire/schema';
import { ApiError } from '@google/genai';

export interface GoogleErrorContext {
  provider: string;
  signal: AbortSignal | undefined;
  toolNames: readonly string[];
  streaming: boolean;
  /** Headers of the failed HTTP response, when the request's fetch saw them. */
  headers?: Headers;
  /** The model asked for, to name it when it cannot take tools. */
  modelId?: string;
}

/** The `error` object of a Google API error body (`{ code, message, status, details }`). */
interface GoogleErrorBody {
  code?: number;
  message?: string;
  status?: string;
  details?: Array<{ '@type'?: string; reason?: string; retryDelay?: string }>;
}

const CONTEXT_OVERFLOW =
  /input token count.*exceeds|exceeds the maximum number of tokens|context length|too many tokens/i;
const SCHEMA_REJECTED =
  /function_declarations|functionDeclarations|response_schema|responseSchema|Invalid JSON payload|schema/i;

/**
 * The SDK puts the whole error body, as JSON text, in the message (`{"error":{…}}`, after
 * `got status: …. ` for errors inside a stream).
 */
function parseBody(message: string): GoogleErrorBody {
  const start = message.indexOf('{');
  if (start < 0) return { message };
  try {
    const parsed = JSON.parse(message.slice(start)) as { error?: GoogleErrorBody };
    return parsed.error ?? { message };
  } catch {
    return { message };
  }
}

/** `RetryInfo.retryDelay` ("2s", "0.5s") in milliseconds. */
function retryDelayMs(body: GoogleErrorBody): number | undefined {
  const info = body.details?.find((detail) => detail['@type']?.endsWith('google.rpc.RetryInfo'));
  const match = /^(\d+(?:\.\d+)?)s$/.exec(info?.retryDelay ?? '');
  return match ? Math.round(Number(match[1]) * 1000) : undefined;
}

/** Maps what the `@google/genai` SDK (or fetch) threw to one of the schema's error classes. */
export function mapGoogleError(error: unknown, context: GoogleErrorContext): ToolwireError {
  const provider = context.provider;
  if (context.signal?.aborted || (error as { name?: unknown })?.name === 'AbortError') {
    return new CancelledError({ message: `${provider}: the request was cancelled`, cause: error });
  }
  if (ToolwireError.isInstance(error)) return error;
  if (error instanceof ApiError) {
    const body = parseBody(error.message);
    const message = body.message ?? error.message;
    if (error.status === 400 && context.toolNames.length > 0) {
      const unsupported = toolCallingUnsupportedError({
        provider,
        modelId: context.modelId,
        message,
        cause: error,
      });
      if (unsupported) return unsupported;
    }
    const reasons = (body.details ?? []).map((detail) => detail.reason ?? '').join(' ');
    const invalidKey = /API_KEY_INVALID/.test(reasons) || /API key not valid/i.test(message);
    const status = invalidKey ? 401 : error.status;
    const schemaRejected = status === 400 && SCHEMA_REJECTED.test(message);
    const indexed = /function_declarations\[(\d+)\]/.exec(message);
    const headerDelay = parseRetryAfter(context.headers);
    const delay = headerDelay ?? retryDelayMs(body);
    return providerErrorFromStatus(status, {
      provider,
      message: `${provider}: ${error.status} ${body.status ? `${body.status}: ` : ''}${message}`,
      providerData: body,
      cause: error,
      // The HTTP status as the server sent it (an invalid key is a 400 on the Gemini API).
      statusCode: error.status,
      headers: delay !== undefined ? { 'retry-after-ms': String(delay) } : undefined,
      contextOverflow: status === 400 && CONTEXT_OVERFLOW.test(message),
      schemaRejected,
      toolName: schemaRejected && indexed ? context.toolNames[Number(indexed[1])] : undefined,
      overloaded: /overloaded/i.test(message),
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
