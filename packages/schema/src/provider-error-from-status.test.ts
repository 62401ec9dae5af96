import { describe, expect, it } from 'vitest';
import { providerErrorFromStatus } from './provider-error-from-status.js';
import {
  ProviderError,
  RateLimitError,
  SchemaRejectedError,
  toolCallingUnsupportedError,
} from './provider-errors.js';

const base = { provider: 'acme', message: 'acme: failed' };

describe('providerErrorFromStatus', () => {
  it.each([
    [401, 'AuthenticationError', 'authentication', false],
    [403, 'ProviderError', 'permission_denied', false],
    [404, 'ProviderError', 'not_found', false],
    [413, 'ContextOverflowError', 'context_overflow', false],
    [400, 'InvalidRequestError', 'invalid_request', false],
    [422, 'InvalidRequestError', 'invalid_request', false],
    [500, 'ServerError', 'server_error', true],
    [503, 'ServerError', 'overloaded', true],
    [529, 'ServerError', 'overloaded', true],
  ] as const)('maps status %i to %s (%s)', (status, name, code, retryable) => {
    const error = providerErrorFromStatus(status, base);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      name,
      code,
      retryable,
      statusCode: status,
      provider: 'acme',
      message: 'acme: failed',
    });
  });

  it('keeps providerData and cause', () => {
    const cause = new Error('http');
    const error = providerErrorFromStatus(400, { ...base, providerData: { error: 'x' }, cause });
    expect(error.providerData).toEqual({ error: 'x' });
    expect(error.cause).toBe(cause);
  });

  it('reads retry-after from Headers or a plain record on a 429', () => {
    const fromHeaders = providerErrorFromStatus(429, {
      ...base,
      headers: new Headers({ 'retry-after': '2' }),
    });
    expect(fromHeaders).toBeInstanceOf(RateLimitError);
    expect((fromHeaders as RateLimitError).retryAfterMs).toBe(2000);
    const fromRecord = providerErrorFromStatus(429, {
      ...base,
      headers: { 'retry-after-ms': '150' },
    });
    expect((fromRecord as RateLimitError).retryAfterMs).toBe(150);
    const without = providerErrorFromStatus(429, base) as RateLimitError;
    expect(without.retryAfterMs).toBeUndefined();
    expect(without.retryable).toBe(true);
  });

  it('reports a context overflow for any status but the specific ones', () => {
    expect(providerErrorFromStatus(400, { ...base, contextOverflow: true }).code).toBe(
      'context_overflow',
    );
    expect(providerErrorFromStatus(500, { ...base, contextOverflow: true }).code).toBe(
      'context_overflow',
    );
    expect(providerErrorFromStatus(401, { ...base, contextOverflow: true }).code).toBe(
      'authentication',
    );
  });

  it('reports a refused schema on a 4xx, naming the tool when given', () => {
    const error = providerErrorFromStatus(400, {
      ...base,
      schemaRejected: true,
      toolName: 'get_weather',
    });
    expect(error).toBeInstanceOf(SchemaRejectedError);
    expect((error as SchemaRejectedError).toolName).toBe('get_weather');
    expect(
      (providerErrorFromStatus(400, { ...base, schemaRejected: true }) as SchemaRejectedError)
        .toolName,
    ).toBeUndefined();
    // A server failure is not a schema rejection, whatever its text says.
    expect(providerErrorFromStatus(500, { ...base, schemaRejected: true }).code).toBe(
      'server_error',
    );
  });

  it('treats a failure without status (a stream error event) as a server failure', () => {
    const error = providerErrorFromStatus(undefined, base);
    expect(error).toMatchObject({ name: 'ServerError', code: 'server_error', retryable: true });
    expect(error.statusCode).toBeUndefined();
    expect(providerErrorFromStatus(undefined, { ...base, contextOverflow: true }).code).toBe(
      'context_overflow',
    );
  });

  it('routes by status but reports statusCode when the adapter gives it', () => {
    const error = providerErrorFromStatus(401, { ...base, statusCode: 400 });
    expect(error).toMatchObject({ name: 'AuthenticationError', statusCode: 400 });
  });

  it('marks a 5xx as overloaded when the adapter says so', () => {
    expect(providerErrorFromStatus(500, { ...base, overloaded: true }).code).toBe('overloaded');
  });
});

describe('toolCallingUnsupportedError', () => {
  it('recognises how servers refuse tools, naming the model', () => {
    for (const message of [
      'registry.ollama.ai/library/gemma:2b does not support tools',
      '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
      'tools param requires --jinja flag',
      'Function calling is not enabled for models/gemma-3-27b-it',
      'Tool calling is not supported for this model',
    ]) {
      const error = toolCallingUnsupportedError({ provider: 'p', modelId: 'm', message });
      expect(error, message).toMatchObject({
        name: 'UnsupportedFeatureError',
        code: 'unsupported',
        feature: 'toolCalling',
        modelId: 'm',
      });
      expect(error!.message).toContain('model "m" does not support tool calling');
      expect(error!.message).toContain(message);
    }
  });

  it('leaves other messages alone', () => {
    for (const message of ['invalid schema for function get_weather', 'model not found'])
      expect(toolCallingUnsupportedError({ provider: 'p', modelId: 'm', message })).toBeUndefined();
  });
});
