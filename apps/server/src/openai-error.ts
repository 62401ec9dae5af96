// Errors and request pieces the OpenAI-compatible endpoints share: OpenAI's error shape (what the
// OpenAI SDKs parse) and the text of a message's `content`.
import type { ServerResponse } from 'node:http';
import { HttpError, sendJson } from './http-util.js';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** OpenAI-style error body (what OpenAI SDKs parse). */
export function openAiError(
  status: number,
  message: string,
  param: string | null,
  code: string,
): HttpError {
  return new HttpError(status, message, -32602, {}, { type: 'invalid_request_error', param, code });
}

/**
 * The text of an OpenAI message `content`: a string, or text parts of the given types joined by
 * newlines. Chat Completions allows a missing content (`null`); the Responses API does not.
 */
export function textOf(
  content: unknown,
  path: string,
  partTypes: readonly string[] = ['text'],
  allowMissing = true,
): string {
  if (typeof content === 'string') return content;
  if (allowMissing && (content === null || content === undefined)) return '';
  if (Array.isArray(content)) {
    return content
      .map((part, i) => {
        if (
          isRecord(part) &&
          partTypes.includes(String(part.type)) &&
          typeof part.text === 'string'
        )
          return part.text;
        throw openAiError(
          400,
          `${path}[${i}]: only ${partTypes.join(', ')} parts are supported`,
          `${path}[${i}]`,
          'unsupported_content',
        );
      })
      .join('\n');
  }
  throw openAiError(
    400,
    `${path}: expected a string or an array of text parts`,
    path,
    'invalid_type',
  );
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  413: 'invalid_request_error',
  429: 'rate_limit_error',
};

/**
 * Errors of the OpenAI-compatible endpoints in OpenAI's shape,
 * `{ "error": { "message", "type", "param", "code" } }`, which OpenAI SDKs parse.
 */
export function sendOpenAiError(res: ServerResponse, error: unknown): void {
  const status = error instanceof HttpError ? error.status : 500;
  const data = error instanceof HttpError && isRecord(error.data) ? error.data : {};
  const message =
    error instanceof HttpError
      ? error.message
      : `Internal error: ${error instanceof Error ? error.message : String(error)}`;
  sendJson(
    res,
    status,
    {
      error: {
        message,
        type:
          typeof data.type === 'string'
            ? data.type
            : (ERROR_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error')),
        param: typeof data.param === 'string' ? data.param : null,
        code: typeof data.code === 'string' ? data.code : null,
      },
    },
    error instanceof HttpError ? error.headers : {},
  );
}

/** A failure of the upstream model: 502, with its message. */
export function upstreamFailure(error: unknown): HttpError {
  const message = error instanceof Error ? error.message : String(error);
  return new HttpError(
    502,
    `The upstream model failed: ${message}`,
    -32603,
    {},
    {
      type: 'upstream_error',
    },
  );
}
