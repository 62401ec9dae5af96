import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { CallDefinitions, isConnectionFailure } from './call.js';
import { noStreamableHttp, transportsToTry } from './transport.js';

describe('CallDefinitions', () => {
  it('hands the SDK each definition without its output schema, built once per listing', () => {
    const listing = [
      { name: 'a', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } },
    ] as McpTool[];
    const definitions = new CallDefinitions();
    const first = definitions.get(listing, 'a');
    expect(first).toEqual({ name: 'a', inputSchema: { type: 'object' } });
    expect(definitions.get(listing, 'a')).toBe(first);
    expect(definitions.get([...listing], 'a')).not.toBe(first);
    expect(definitions.get(listing, 'missing')).toBeUndefined();
  });
});

describe('isConnectionFailure', () => {
  it('is true for a closed or failed connection, not for an answer the server gave', () => {
    expect(isConnectionFailure(new SdkError(SdkErrorCode.ConnectionClosed, 'closed'))).toBe(true);
    expect(isConnectionFailure(new Error('fetch failed'))).toBe(true);
    expect(isConnectionFailure(new Error('connect ECONNREFUSED 127.0.0.1:1'))).toBe(true);
    expect(isConnectionFailure(new SdkError(SdkErrorCode.RequestTimeout, 'slow'))).toBe(false);
    expect(isConnectionFailure(new Error('Invalid params'))).toBe(false);
  });
});

describe('transports', () => {
  it('tries streamable HTTP then SSE for a plain url, and only the declared one otherwise', () => {
    expect(transportsToTry({ url: 'http://x' }, 'http')).toEqual(['http', 'sse']);
    expect(transportsToTry({ url: 'http://x', transport: 'http' }, 'http')).toEqual(['http']);
    expect(transportsToTry({ command: 'x' }, 'stdio')).toEqual(['stdio']);
  });

  it('falls back to SSE only when the HTTP answer says there is no streamable HTTP', () => {
    expect(noStreamableHttp('http', new Error('fetch failed'))).toBeUndefined();
    expect(noStreamableHttp('sse', new Error('x'))).toBeUndefined();
  });
});
