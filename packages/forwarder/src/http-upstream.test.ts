import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLeanUpstream, type LeanUpstream } from '../test/fixtures/lean-upstream.js';
import { HttpUpstream, UpstreamError } from './http-upstream.js';
import { JsonRpcFault } from './json-rpc.js';
import { MODERN_PROTOCOL } from './mcp-protocol.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function upstreamOf(
  protocol: 'both' | 'legacy' | 'modern',
): Promise<{ lean: LeanUpstream; http: HttpUpstream }> {
  const lean = await startLeanUpstream({ protocol });
  const http = new HttpUpstream({ name: 'lean', url: lean.url });
  cleanups.push(
    () => lean.close(),
    () => http.close(),
  );
  return { lean, http };
}

describe('HttpUpstream', () => {
  it('speaks 2026-07-28 to an upstream that offers it, naming method and tool in headers', async () => {
    const { lean, http } = await upstreamOf('both');
    const result = await http.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    expect(http.protocolVersion).toBe(MODERN_PROTOCOL);
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });
    const call = lean.received.find((r) => r.method === 'tools/call')!;
    expect(call.headers['mcp-method']).toBe('tools/call');
    expect(call.headers['mcp-name']).toBe('echo');
    expect(call.headers['mcp-protocol-version']).toBe(MODERN_PROTOCOL);
    expect(call.params._meta).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL,
    });
  });

  it('falls back to initialize and a session with a 2025-era upstream', async () => {
    const { lean, http } = await upstreamOf('legacy');
    await http.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    expect(http.protocolVersion).toBe('2025-11-25');
    const call = lean.received.find((r) => r.method === 'tools/call')!;
    expect(call.headers['mcp-session-id']).toEqual(expect.any(String));
    expect(call.headers['mcp-name']).toBeUndefined();
    expect(lean.received.map((r) => r.method)).toContain('notifications/initialized');
  });

  it('rejects a JSON-RPC error answer with a JsonRpcFault carrying its code', async () => {
    const { http } = await upstreamOf('both');
    const error = await http.request('no/such/method', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcFault);
    expect((error as JsonRpcFault).rpcCode).toBe(-32601);
  });

  it('times out a request and tells the upstream to cancel it under its own id', async () => {
    const { lean, http } = await upstreamOf('both');
    const error = await http
      .request('tools/call', { name: 'sleep', arguments: { ms: 5_000 } }, { timeoutMs: 50 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: 'timeout', code: 'upstream_timeout' });
    await vi.waitFor(() =>
      expect(lean.received.some((r) => r.method === 'notifications/cancelled')).toBe(true),
    );
    const call = lean.received.find((r) => r.method === 'tools/call')!;
    const cancel = lean.received.find((r) => r.method === 'notifications/cancelled')!;
    expect(cancel.params.requestId).toBe(call.id);
  });

  it('says an upstream that is gone is unreachable (a connection failure)', async () => {
    const { lean, http } = await upstreamOf('both');
    await http.connect();
    await lean.close();
    const error = await http.request('ping', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'connection', upstream: 'lean' });
    expect((error as Error).message).toMatch(/unreachable/);
  });

  it('hands notifications sent while answering to onNotification', async () => {
    const { http } = await upstreamOf('both');
    const seen: string[] = [];
    await http.request(
      'tools/call',
      { name: 'sleep', arguments: { ms: 10 }, _meta: { progressToken: 'p' } },
      { onNotification: (message) => seen.push(message.method!) },
    );
    expect(seen).toContain('notifications/progress');
  });
});
