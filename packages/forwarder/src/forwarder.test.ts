/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON-RPC answers */
import { PassThrough } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ConfigError, loadConfig } from '@toolwire/config/node';
import { defineTool, toolContent } from '@toolwire/schema';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLeanUpstream, type LeanUpstream } from '../test/fixtures/lean-upstream.js';
import { createHttpToolSource, type HttpToolSource } from '../test/helpers/http-tool-source.js';
import type { AuditEntry } from './audit-log.js';
import { createForwarder, type CreateForwarderOptions, type Forwarder } from './forwarder.js';
import { serveStdio } from './stdio-server.js';

interface Harness {
  upstreams: Record<string, LeanUpstream>;
  source: HttpToolSource;
  forwarder: Forwarder;
  url: string;
  audit: AuditEntry[];
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup(
  options: Partial<Omit<CreateForwarderOptions, 'upstreams'>> & {
    kinds?: Record<string, 'both' | 'legacy' | 'modern'>;
  } = {},
): Promise<Harness> {
  const kinds = options.kinds ?? { lean: 'both' };
  const upstreams: Record<string, LeanUpstream> = {};
  for (const [name, protocol] of Object.entries(kinds)) {
    upstreams[name] = await startLeanUpstream({ protocol });
    cleanups.push(() => upstreams[name]!.close());
  }
  const source = createHttpToolSource(
    Object.fromEntries(Object.entries(upstreams).map(([n, u]) => [n, u.url])),
  );
  await source.start();
  cleanups.push(() => source.close());
  const audit: AuditEntry[] = [];
  const config = {
    ...(options.config ?? {}),
    mcpServers: Object.fromEntries(Object.entries(upstreams).map(([n, u]) => [n, { url: u.url }])),
  };
  const { kinds: _kinds, ...rest } = options;
  void _kinds;
  const forwarder = createForwarder({
    ...rest,
    source,
    config,
    audit: (entry) => audit.push(entry),
  });
  const { url } = await forwarder.listen();
  cleanups.push(() => forwarder.close());
  return { upstreams, source, forwarder, url, audit };
}

async function rpc(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const all: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    ...headers,
  };
  let payload = body as any;
  // A 2026-07-28 request carries the per-request `_meta` envelope and names its method in a header.
  if (
    all['mcp-protocol-version'] === '2026-07-28' &&
    payload &&
    !Array.isArray(payload) &&
    payload.method
  ) {
    all['mcp-method'] ??= payload.method;
    const params = payload.params ?? {};
    payload = {
      ...payload,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          ...params._meta,
        },
      },
    };
  }
  const response = await fetch(url, {
    method: 'POST',
    headers: all,
    body: JSON.stringify(payload),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

function call(
  url: string,
  name: string,
  args: unknown,
  headers: Record<string, string> = {},
  id = 1,
) {
  return rpc(
    url,
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
    {
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...headers,
    },
  );
}

/**
 * The answer to a call of a tool the caller may not use is, byte for byte, the answer to a call of
 * one that does not exist (SPEC.md: the policy detail goes to the audit log only).
 */
function expectAnsweredAsMissing(
  hidden: { status: number; text: string },
  hiddenName: string,
  missing: { status: number; text: string },
  missingName: string,
): void {
  expect(hidden.status).toBe(missing.status);
  expect(hidden.text.replaceAll(hiddenName, '<name>')).toBe(
    missing.text.replaceAll(missingName, '<name>'),
  );
  expect(hidden.text).toContain('Unknown tool');
}

async function sdkClient(
  url: string,
  mode: 'legacy' | 'auto',
  headers: Record<string, string> = {},
): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' }, {
    versionNegotiation: { mode },
  } as never);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  cleanups.push(() => client.close());
  return client;
}

describe('createForwarder', () => {
  it('serves native and namespaced upstream tools to an SDK client over 2025-11-25 sessions', async () => {
    const hash = defineTool({
      name: 'shout',
      description: 'Upper-cases the text it is given.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: (args: Record<string, unknown>) => String(args.text).toUpperCase(),
    });
    const { url } = await setup({ nativeTools: [hash] });
    const client = await sdkClient(`${url}/mcp`, 'legacy');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'shout',
      'lean__echo',
      'lean__lookup',
      'lean__write',
      'lean__sleep',
      'lean__fail',
      'lean__ask',
    ]);
    const native = await client.callTool({ name: 'shout', arguments: { text: 'hi' } });
    expect(native.content).toEqual([{ type: 'text', text: 'HI' }]);
    const forwarded = await client.callTool({
      name: 'lean__echo',
      arguments: { text: 'over the wire' },
    });
    expect(forwarded.content).toEqual([{ type: 'text', text: 'over the wire' }]);
  });

  it('answers a native tool that returns a URI-only resource with a valid resource_link', async () => {
    const link = defineTool({
      name: 'link',
      description: 'Points at a resource without its content.',
      inputSchema: { type: 'object' },
      execute: () => toolContent([{ type: 'resource', uri: 'mem://notes/1' }]),
    });
    const { url } = await setup({ nativeTools: [link] });
    const client = await sdkClient(`${url}/mcp`, 'auto');
    const result = await client.callTool({ name: 'link', arguments: {} });
    expect(result.content).toEqual([
      { type: 'resource_link', uri: 'mem://notes/1', name: 'mem://notes/1' },
    ]);
  });

  it('serves an SDK client that negotiates 2026-07-28 (server/discover, stateless)', async () => {
    const { url } = await setup();
    const client = await sdkClient(`${url}/mcp`, 'auto');
    const { tools } = await client.listTools();
    expect(tools.some((t) => t.name === 'lean__echo')).toBe(true);
    const result = await client.callTool({ name: 'lean__echo', arguments: { text: 'modern' } });
    expect(result.content).toEqual([{ type: 'text', text: 'modern' }]);
  });

  it('names itself on 2026-07-28 where the SDKs read it (server/discover _meta serverInfo)', async () => {
    // The official v2 SDK (serverInfoFromDiscover) and @ai-sdk/mcp both read
    // result._meta['io.modelcontextprotocol/serverInfo'] of server/discover.
    const { url } = await setup({ serverInfo: { name: 'gw', version: '9.9.9' } });
    const client = await sdkClient(`${url}/mcp`, 'auto');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(client.getServerVersion()).toEqual({ name: 'gw', version: '9.9.9' });
  });

  it('rewrites the tool name, the Mcp-Name header and the request id on the upstream hop', async () => {
    const { url, upstreams } = await setup();
    const response = await call(
      `${url}/mcp`,
      'lean__echo',
      { text: 'x' },
      {},
      'client-id-7' as never,
    );
    expect(response.body.id).toBe('client-id-7');
    const seen = upstreams.lean!.received.filter((r) => r.method === 'tools/call').at(-1)!;
    expect(seen.params.name).toBe('echo');
    expect(seen.headers['mcp-name']).toBe('echo');
    expect(seen.headers['mcp-method']).toBe('tools/call');
    expect(typeof seen.id).toBe('number');
  });

  it('talks 2025-11-25 to a legacy-only upstream and re-initializes when its session is lost', async () => {
    const { url, upstreams } = await setup({ kinds: { old: 'legacy' } });
    const first = await call(`${url}/mcp`, 'old__echo', { text: 'a' });
    expect(first.body.result.content[0].text).toBe('a');
    await upstreams.old!.close();
    // A restarted upstream on the same port has forgotten every session.
    const port = Number(new URL(upstreams.old!.url).port);
    const restarted = await startLeanUpstream({ protocol: 'legacy', port });
    cleanups.push(() => restarted.close());
    const second = await call(`${url}/mcp`, 'old__echo', { text: 'b' });
    expect(second.body.result.content[0].text).toBe('b');
    expect(restarted.received.some((r) => r.method === 'initialize')).toBe(true);
    expect(restarted.received.some((r) => r.method === 'server/discover')).toBe(false);
  });

  it('answers JSON-RPC batches with Invalid Request', async () => {
    const { url } = await setup();
    const response = await rpc(`${url}/mcp`, [{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(-32600);
    expect(response.body.error.message).toContain('batches');
  });

  it('rejects a body whose Mcp-Name header disagrees (HeaderMismatch)', async () => {
    const { url } = await setup();
    const response = await call(
      `${url}/mcp`,
      'lean__echo',
      { text: 'x' },
      { 'mcp-name': 'lean__write' },
    );
    expect(response.body.error.code).toBe(-32020);
  });

  it('rejects 2026-07-28 requests without the _meta envelope, of unknown revisions, or of removed methods', async () => {
    const { url } = await setup();
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    };
    const missing = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as any).error.code).toBe(-32602);
    const future = await rpc(
      `${url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2099-01-01',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
      { 'mcp-protocol-version': '2099-01-01' },
    );
    expect(future.status).toBe(400);
    expect(future.body.id).toBe(8);
    expect(future.body.error.code).toBe(-32022);
    expect(future.body.error.data.supported).toContain('2026-07-28');
    const removed = await rpc(`${url}/mcp`, { jsonrpc: '2.0', id: 9, method: 'ping' });
    expect(removed.status).toBe(404);
    expect(removed.body.error.code).toBe(-32601);
  });

  it('requires a session id for 2025-era requests after initialize', async () => {
    const { url } = await setup();
    const response = await rpc(
      `${url}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain('Mcp-Session-Id');
  });

  it('refuses a foreign Host header (DNS-rebinding protection)', async () => {
    const { url } = await setup();
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${url}/mcp`,
        {
          method: 'POST',
          headers: { host: 'evil.example.com', 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    });
    expect(status).toBe(403);
  });
});

describe('policy', () => {
  it('applies allow and block globs to tools/list and tools/call alike, the rule in the audit line only', async () => {
    const { url, upstreams, audit } = await setup({
      config: { policy: { allow: ['lean__*'], block: ['lean__write', 'lean__f*'] } },
    });
    const list = await rpc(
      `${url}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'mcp-method': 'tools/list' },
    );
    expect(list.body.result.tools.map((t: { name: string }) => t.name)).toEqual([
      'lean__echo',
      'lean__lookup',
      'lean__sleep',
      'lean__ask',
    ]);
    const refused = await call(`${url}/mcp`, 'lean__write', { path: 'a' });
    const missing = await call(`${url}/mcp`, 'lean__nope', { path: 'a' });
    expectAnsweredAsMissing(refused, 'lean__write', missing, 'lean__nope');
    expect(upstreams.lean!.counts.get('write')).toBeUndefined();
    expect(audit.find((e) => e.tool === 'lean__write')).toMatchObject({
      outcome: 'refused',
      error: expect.stringContaining('policy.block'),
    });
  });

  it("gives native and caller tools the caller's tools: their calls run with its token, policy and audit", async () => {
    // A tool that calls another tool by the name it is given, as whoever called it.
    const relay = defineTool({
      name: 'relay',
      description: 'Calls a tool on behalf of the caller.',
      inputSchema: {
        type: 'object',
        properties: { tool: { type: 'string' } },
        required: ['tool'],
      },
      execute: async ({ tool }, context) => {
        const visible = context.tools!.listTools().map((t) => t.name);
        try {
          const result = await context.tools!.callTool(String(tool), { key: 'k', text: 't' });
          return { visible, ok: !result.isError };
        } catch (error) {
          return { visible, refused: (error as Error).message };
        }
      },
    });
    const { url, audit } = await setup({
      nativeTools: [relay],
      callerTools: {
        // Listed per caller; it hides the upstream's tools from the listing (still callable).
        forCaller: ({ token, tools }) => ({
          tools: [
            defineTool({
              name: 'whoami',
              description: 'Says which client calls and how many tools it has.',
              inputSchema: { type: 'object', properties: {} },
              execute: (_args, context) =>
                `${token?.client}: ${context.tools!.listTools().length} of ${tools.listTools().length}`,
            }),
          ],
          lists: (name) => !name.startsWith('lean__'),
        }),
      },
      config: {
        auth: {
          tokens: [
            { token: 'secret-a', client: 'a', allow: ['relay', 'whoami', 'lean__echo'] },
            { token: 'secret-b', client: 'b', allow: ['relay'] },
          ],
        },
      },
    });
    const a = { authorization: 'Bearer secret-a' };
    const listA = await rpc(
      `${url}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { ...a, 'mcp-method': 'tools/list' },
    );
    expect(listA.body.result.tools.map((t: { name: string }) => t.name)).toEqual([
      'whoami',
      'relay',
    ]);
    const whoami = await call(`${url}/mcp`, 'whoami', {}, a);
    expect(whoami.body.result.content[0].text).toBe('a: 2 of 2');
    // Hidden from the listing, still callable by name as the token allows.
    expect((await call(`${url}/mcp`, 'lean__echo', { text: 'x' }, a)).body.result).toBeDefined();

    const allowed = await call(`${url}/mcp`, 'relay', { tool: 'lean__echo' }, a);
    expect(JSON.parse(allowed.body.result.content[0].text)).toMatchObject({ ok: true });
    const b = { authorization: 'Bearer secret-b' };
    const refused = await call(`${url}/mcp`, 'relay', { tool: 'lean__lookup' }, b);
    const answer = JSON.parse(refused.body.result.content[0].text);
    expect(answer.visible).toEqual(['relay']);
    expect(answer.refused).toBe('Unknown tool: lean__lookup');
    // whoami is not in b's allow list: neither listed nor callable, as if it did not exist.
    expectAnsweredAsMissing(
      await call(`${url}/mcp`, 'whoami', {}, b),
      'whoami',
      await call(`${url}/mcp`, 'whoareyou', {}, b),
      'whoareyou',
    );
    expect(
      audit
        .filter((e) => e.tool === 'lean__echo' || e.tool === 'lean__lookup')
        .map((e) => [e.client, e.tool, e.outcome]),
    ).toEqual([
      ['a', 'lean__echo', 'ok'],
      ['a', 'lean__echo', 'ok'],
      ['b', 'lean__lookup', 'refused'],
    ]);
  });

  it('authenticates bearer tokens and limits each token to its allowed tools', async () => {
    const { url } = await setup({
      config: {
        auth: {
          tokens: [
            { token: 'secret-a', client: 'a', allow: ['lean__echo'] },
            { token: 'secret-b', client: 'b' },
          ],
        },
      },
    });
    const anonymous = await rpc(
      `${url}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'mcp-method': 'tools/list' },
    );
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = await rpc(
      `${url}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { authorization: 'Bearer nope', 'mcp-method': 'ping' },
    );
    expect(wrong.status).toBe(401);
    const listA = await rpc(
      `${url}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { authorization: 'Bearer secret-a', 'mcp-method': 'tools/list' },
    );
    expect(listA.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['lean__echo']);
    expect(listA.body.result.cacheScope).toBe('private');
    const refused = await call(
      `${url}/mcp`,
      'lean__lookup',
      { key: 'k' },
      { authorization: 'Bearer secret-a' },
    );
    expectAnsweredAsMissing(
      refused,
      'lean__lookup',
      await call(`${url}/mcp`, 'lean__nope', { key: 'k' }, { authorization: 'Bearer secret-a' }),
      'lean__nope',
    );
    const allowed = await call(
      `${url}/mcp`,
      'lean__lookup',
      { key: 'k' },
      { authorization: 'Bearer secret-b' },
    );
    expect(allowed.body.result.content[0].text).toContain('value of k');
    const metrics = await fetch(`${url}/metrics`);
    expect(metrics.status).toBe(401);
  });

  it('accepts an auth token without a client name, as loadConfig does (one config module)', async () => {
    const config = loadConfig({ auth: { tokens: [{ token: 'secret-1' }] } });
    const { url } = await setup({ config });
    const list = await rpc(
      `${url}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { authorization: 'Bearer secret-1' },
    );
    expect(list.status).toBe(200);
    expect(list.body.result.tools.length).toBeGreaterThan(0);
  });

  it('refuses a bad config with a ConfigError that names the dotted path', () => {
    let thrown: unknown;
    try {
      createForwarder({
        source: createHttpToolSource({}),
        config: { policy: { rateLimit: { perTool: { fs__write_file: -1 } } } },
      });
    } catch (error) {
      thrown = error;
    }
    expect(ConfigError.isInstance(thrown)).toBe(true);
    expect((thrown as ConfigError).path).toBe('policy.rateLimit.perTool.fs__write_file');
  });

  it('refuses calls over the per-tool and per-client rate limits with retryAfterMs', async () => {
    const { url } = await setup({
      config: { policy: { rateLimit: { perMinute: 600, perTool: { 'lean__e*': 2 } } } },
    });
    expect((await call(`${url}/mcp`, 'lean__echo', { text: '1' })).body.result).toBeDefined();
    expect((await call(`${url}/mcp`, 'lean__echo', { text: '2' })).body.result).toBeDefined();
    const third = await call(`${url}/mcp`, 'lean__echo', { text: '3' });
    expect(third.body.error.message).toContain('rate limit');
    expect(third.body.error.data.retryAfterMs).toBeGreaterThan(0);
    expect(third.body.error.data.policy).toBe('policy.rateLimit.perTool');
    // Other tools are not limited by that pattern.
    expect((await call(`${url}/mcp`, 'lean__lookup', { key: 'x' })).body.result).toBeDefined();
  });

  it('validates arguments against the input schema before forwarding', async () => {
    const { url, upstreams } = await setup();
    const response = await call(`${url}/mcp`, 'lean__echo', { text: 42 });
    expect(response.body.result.isError).toBe(true);
    expect(response.body.result.content[0].text).toContain(
      'Invalid arguments for tool "lean__echo"',
    );
    expect(upstreams.lean!.counts.get('echo')).toBeUndefined();
  });

  it('refuses path arguments that escape the allowed roots (policy.paths)', async () => {
    const { url, upstreams } = await setup({
      argumentRules: [{ tools: ['lean__write'], paths: ['path'], roots: ['/srv/data'] }],
    });
    const escape = await call(`${url}/mcp`, 'lean__write', { path: '../../etc/passwd' });
    expect(escape.body.error.data.policy).toBe('policy.paths');
    expect(escape.body.error.message).toContain('contains ".."');
    const absolute = await call(`${url}/mcp`, 'lean__write', { path: '/etc/passwd' });
    expect(absolute.body.error.data.argument).toBe('path');
    expect(absolute.body.error.message).toContain('outside the allowed roots');
    const relative = await call(`${url}/mcp`, 'lean__write', { path: 'notes/today.txt' });
    expect(relative.body.error.message).toContain('is relative');
    const inside = await call(`${url}/mcp`, 'lean__write', { path: '/srv/data/notes/today.txt' });
    expect(inside.body.result.content[0].text).toBe('wrote /srv/data/notes/today.txt');
    expect(upstreams.lean!.counts.get('write')).toBe(1);
  });

  it('answers an unknown tool with an error, not a crash', async () => {
    const { url } = await setup();
    const response = await call(`${url}/mcp`, 'lean__nope', {});
    expect(response.body.error.code).toBe(-32602);
    expect(response.body.error.message).toContain('Unknown tool');
  });
});

describe('result cache', () => {
  it('caches nothing by default: the cache is opt-in per tool', async () => {
    const { url, upstreams } = await setup();
    await call(`${url}/mcp`, 'lean__lookup', { key: 'k' });
    const second = await call(`${url}/mcp`, 'lean__lookup', { key: 'k' });
    expect(second.body.result.content[0].text).toBe('value of k #2');
    expect(upstreams.lean!.counts.get('lookup')).toBe(2);
  });

  it('caches read-only tools per client scope with cache.readOnlyTools and invalidates on list_changed', async () => {
    const { url, upstreams, source } = await setup({ config: { cache: { readOnlyTools: true } } });
    const a = await call(`${url}/mcp`, 'lean__lookup', { key: 'k' });
    const b = await call(`${url}/mcp`, 'lean__lookup', { key: 'k' });
    expect(b.body.result).toEqual(a.body.result);
    expect(upstreams.lean!.counts.get('lookup')).toBe(1);
    // Not annotated read-only: never cached by default.
    await call(`${url}/mcp`, 'lean__echo', { text: 'x' });
    await call(`${url}/mcp`, 'lean__echo', { text: 'x' });
    expect(upstreams.lean!.counts.get('echo')).toBe(2);
    await source.refresh('lean');
    await call(`${url}/mcp`, 'lean__lookup', { key: 'k' });
    expect(upstreams.lean!.counts.get('lookup')).toBe(2);
    const metrics = await fetch(`${url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/toolwire_forwarder_cache_hits_total\{tool="lean__lookup"\} 1/);
  });

  it('drops every cached entry of an upstream for every client after a call that is not read-only', async () => {
    const { url, upstreams } = await setup({
      kinds: { lean: 'both', other: 'both' },
      config: {
        cache: { tools: ['*__lookup'] },
        auth: {
          tokens: [
            { token: 'secret-a', client: 'alice' },
            { token: 'secret-b', client: 'bob' },
          ],
        },
      },
    });
    const alice = { authorization: 'Bearer secret-a' };
    const bob = { authorization: 'Bearer secret-b' };
    const text = (r: { body: any }) => r.body.result.content[0].text as string;
    expect(text(await call(`${url}/mcp`, 'lean__lookup', { key: 'k' }, alice))).toBe(
      'value of k #1',
    );
    expect(text(await call(`${url}/mcp`, 'lean__lookup', { key: 'k' }, bob))).toBe('value of k #2');
    expect(text(await call(`${url}/mcp`, 'other__lookup', { key: 'k' }, bob))).toBe(
      'value of k #1',
    );
    expect(text(await call(`${url}/mcp`, 'lean__lookup', { key: 'k' }, alice))).toBe(
      'value of k #1',
    );
    // Bob writes to lean: alice's and bob's cached lean reads go, other's stay.
    await call(`${url}/mcp`, 'lean__write', { path: 'x' }, bob);
    expect(text(await call(`${url}/mcp`, 'lean__lookup', { key: 'k' }, alice))).toBe(
      'value of k #3',
    );
    expect(text(await call(`${url}/mcp`, 'lean__lookup', { key: 'k' }, bob))).toBe('value of k #4');
    expect(text(await call(`${url}/mcp`, 'other__lookup', { key: 'k' }, bob))).toBe(
      'value of k #1',
    );
    // A tool without annotations is not read-only either, and a failed write invalidates too.
    await call(`${url}/mcp`, 'lean__fail', {}, alice);
    expect(text(await call(`${url}/mcp`, 'lean__lookup', { key: 'k' }, bob))).toBe('value of k #5');
    expect(upstreams.other!.counts.get('lookup')).toBe(1);
  });

  it('does not store a read that raced a write (the read began before the write finished)', async () => {
    const { forwarder, upstreams } = await setup({ config: { cache: { tools: ['lean__sleep'] } } });
    // A slow cacheable call whose answer was computed before the write landed.
    const slow = forwarder.callTool('lean__sleep', { ms: 200 });
    // The write lands while the read runs upstream.
    await vi.waitFor(() => expect(upstreams.lean!.counts.get('sleep')).toBe(1));
    await forwarder.callTool('lean__write', { path: 'x' });
    await slow;
    await forwarder.callTool('lean__sleep', { ms: 200 });
    expect(upstreams.lean!.counts.get('sleep')).toBe(2);
  });

  it('drops cached reads after a write through the passthrough route /servers/<name>/mcp', async () => {
    const { url } = await setup({ config: { cache: { readOnlyTools: true } } });
    const text = (r: { body: any }) => r.body.result.content[0].text as string;
    expect(text(await call(`${url}/mcp`, 'lean__lookup', { key: 'k' }))).toBe('value of k #1');
    expect(text(await call(`${url}/mcp`, 'lean__lookup', { key: 'k' }))).toBe('value of k #1');
    // The relay forwards the exchange as it is, under the upstream's own tool name.
    expect(text(await call(`${url}/servers/lean/mcp`, 'write', { path: 'x' }))).toBe('wrote x');
    expect(text(await call(`${url}/mcp`, 'lean__lookup', { key: 'k' }))).toBe('value of k #2');
  });

  it('caches opt-in tools from cache.tools', async () => {
    const { url, upstreams } = await setup({
      config: { cache: { ttlSeconds: 60, maxEntries: 10, tools: ['lean__echo'] } },
    });
    await call(`${url}/mcp`, 'lean__echo', { text: 'same' });
    await call(`${url}/mcp`, 'lean__echo', { text: 'same' });
    await call(`${url}/mcp`, 'lean__echo', { text: 'other' });
    expect(upstreams.lean!.counts.get('echo')).toBe(2);
  });
});

describe('resilience', () => {
  it('retries a read-only tool once after a dropped connection, never a destructive one', async () => {
    const { url, upstreams } = await setup({ cacheReadOnlyTools: false });
    upstreams.lean!.dropNext(1);
    const retried = await call(`${url}/mcp`, 'lean__lookup', { key: 'k' });
    expect(retried.body.result.content[0].text).toContain('value of k');
    upstreams.lean!.dropNext(1);
    const notRetried = await call(`${url}/mcp`, 'lean__write', { path: 'x' });
    expect(notRetried.body.error.code).toBe(-32050);
    expect(upstreams.lean!.counts.get('write') ?? 0).toBe(0);
  });

  it('times out a slow call per tool and cancels it upstream under the rewritten id', async () => {
    const { url, upstreams } = await setup({ toolTimeouts: { lean__sleep: 100 } });
    const response = await call(`${url}/mcp`, 'lean__sleep', { ms: 2000 });
    expect(response.body.error.code).toBe(-32051);
    expect(response.body.error.message).toContain('timed out after 100 ms');
    await vi.waitFor(() =>
      expect(upstreams.lean!.received.some((r) => r.method === 'notifications/cancelled')).toBe(
        true,
      ),
    );
    const upstreamCall = upstreams.lean!.received.find((r) => r.method === 'tools/call')!;
    const cancel = upstreams.lean!.received.find((r) => r.method === 'notifications/cancelled')!;
    expect(cancel.params.requestId).toBe(upstreamCall.id);
  });

  it('marks an idle HTTP upstream down when its probe finds it gone, and up when it answers', async () => {
    // The source keeps saying `ok` (it has no stream to lose): only the probe can tell.
    const { forwarder, upstreams } = await setup({ probeIntervalMs: 0 });
    const lean = () => forwarder.servers().find((server) => server.name === 'lean')!;
    await forwarder.pipeline.probeIdle();
    expect(lean().status).toBe('ok');
    const port = Number(new URL(upstreams.lean!.url).port);
    await upstreams.lean!.close();
    await forwarder.pipeline.probeIdle();
    expect(lean()).toMatchObject({ status: 'down', reason: expect.stringMatching(/unreachable/) });
    upstreams.lean = await startLeanUpstream({ port });
    await forwarder.pipeline.probeIdle();
    expect(lean().status).toBe('ok');
  });

  it('opens the circuit breaker of a dead upstream without touching the others, then probes half-open', async () => {
    const { url, upstreams } = await setup({
      kinds: { a: 'both', b: 'both' },
      breaker: { failureThreshold: 2, openMs: 200 },
      retry: false,
    });
    await upstreams.a!.close();
    const first = await call(`${url}/mcp`, 'a__echo', { text: 'x' });
    expect(first.body.error.code).toBe(-32050);
    await call(`${url}/mcp`, 'a__echo', { text: 'x' });
    const open = await call(`${url}/mcp`, 'a__echo', { text: 'x' });
    expect(open.body.error.message).toContain('circuit breaker open');
    expect(open.body.error.data.retryAfterMs).toBeGreaterThan(0);
    const other = await call(`${url}/mcp`, 'b__echo', { text: 'still fine' });
    expect(other.body.result.content[0].text).toBe('still fine');
    const metrics = await fetch(`${url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/toolwire_forwarder_circuit_breaker_state\{upstream="a"\} 2/);
    // Bring a back on the same port: after openMs one probe goes through and closes the breaker.
    const restarted = await startLeanUpstream({ port: Number(new URL(upstreams.a!.url).port) });
    cleanups.push(() => restarted.close());
    // Refused while open (the upstream is not asked); after openMs one call goes through.
    await vi.waitFor(
      async () => {
        const probe = await call(`${url}/mcp`, 'a__echo', { text: 'back' });
        expect(probe.body.result?.content[0].text).toBe('back');
      },
      { timeout: 10_000, interval: 50 },
    );
  });

  it('maps progress notifications back to the client token over SSE', async () => {
    const { url, upstreams } = await setup();
    const response = await rpc(
      `${url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'lean__sleep', arguments: { ms: 20 }, _meta: { progressToken: 'mine' } },
      },
      { 'mcp-method': 'tools/call', 'mcp-name': 'lean__sleep' },
    );
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = response.text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    expect(
      events
        .filter((e) => e.method === 'notifications/progress')
        .map((e) => e.params.progressToken),
    ).toEqual(['mine', 'mine']);
    expect(events.at(-1).id).toBe(5);
    const upstreamToken = (
      upstreams.lean!.received.find((r) => r.method === 'tools/call')!.params._meta as Record<
        string,
        unknown
      >
    ).progressToken;
    expect(upstreamToken).not.toBe('mine');
  });

  it('passes a 2026-07-28 input_required round through to the client and its answer back upstream', async () => {
    const { url, upstreams } = await setup();
    const first = await call(`${url}/mcp`, 'lean__ask', {});
    expect(first.body.result.resultType).toBe('input_required');
    expect(first.body.result.inputRequests.who.method).toBe('elicitation/create');
    const retry = await rpc(
      `${url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'lean__ask',
          arguments: {},
          inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } },
          requestState: first.body.result.requestState,
        },
      },
      { 'mcp-name': 'lean__ask' },
    );
    expect(retry.body.result.content[0].text).toBe('hello Ada (round-1)');
    expect(retry.body.result.resultType).toBe('complete');
    expect(upstreams.lean!.counts.get('ask')).toBe(2);
    // A 2025-era session cannot answer it: a clear error instead of a broken result.
    const init = await rpc(
      `${url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        },
      },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    const legacy = await rpc(
      `${url}/mcp`,
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'lean__ask', arguments: {} } },
      {
        'mcp-protocol-version': '2025-11-25',
        'mcp-session-id': init.headers.get('mcp-session-id')!,
      },
    );
    expect(legacy.body.error.data.inputRequired).toBe(true);
  });

  it('forwards a 2025-era notifications/cancelled to the upstream call', async () => {
    const { url, upstreams } = await setup();
    const init = await rpc(
      `${url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        },
      },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    const session = init.headers.get('mcp-session-id')!;
    const headers = { 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': session };
    const pending = rpc(
      `${url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 'slow',
        method: 'tools/call',
        params: { name: 'lean__sleep', arguments: { ms: 3000 } },
      },
      headers,
    );
    // Cancel only once the call is in flight upstream (no race with a busy machine).
    await vi.waitFor(() =>
      expect(upstreams.lean!.received.some((r) => r.method === 'tools/call')).toBe(true),
    );
    await rpc(
      `${url}/mcp`,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow' } },
      headers,
    );
    const response = await pending;
    expect(response.body.error.data.cancelled).toBe(true);
    await vi.waitFor(() =>
      expect(upstreams.lean!.received.some((r) => r.method === 'notifications/cancelled')).toBe(
        true,
      ),
    );
    const upstreamCall = upstreams.lean!.received.find((r) => r.method === 'tools/call')!;
    const cancel = upstreams.lean!.received.find((r) => r.method === 'notifications/cancelled')!;
    expect(cancel.params.requestId).toBe(upstreamCall.id);
  });
});

describe('observability', () => {
  it('writes one audit line per call with arguments redacted', async () => {
    const { url, audit } = await setup();
    await call(`${url}/mcp`, 'lean__echo', { text: 'secret value' });
    await call(`${url}/mcp`, 'lean__fail', {});
    expect(audit).toHaveLength(2);
    expect(audit[0]).toMatchObject({
      client: 'anonymous',
      tool: 'lean__echo',
      upstream: 'lean',
      outcome: 'ok',
      arguments: { text: '[string]' },
    });
    expect(JSON.stringify(audit)).not.toContain('secret value');
    expect(audit[1]!.outcome).toBe('tool_error');
    expect(typeof audit[0]!.durationMs).toBe('number');
  });

  it('exposes Prometheus metrics for calls, errors, latency, hidden tools and upstream health', async () => {
    const { url, forwarder } = await setup({ config: { policy: { block: ['lean__write'] } } });
    await call(`${url}/mcp`, 'lean__echo', { text: 'x' });
    await call(`${url}/mcp`, 'lean__write', {});
    await rpc(
      `${url}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'mcp-method': 'tools/list' },
    );
    const text = await forwarder.metrics();
    expect(text).toMatch(
      /toolwire_forwarder_calls_total\{tool="lean__echo",upstream="lean",outcome="ok"\} 1/,
    );
    expect(text).toMatch(
      /toolwire_forwarder_calls_total\{tool="lean__write",upstream="lean",outcome="refused"\} 1/,
    );
    expect(text).toMatch(/toolwire_forwarder_call_duration_seconds_bucket/);
    expect(text).toMatch(/toolwire_forwarder_tools_hidden\{reason="policy"\} 1/);
    expect(text).toMatch(/toolwire_forwarder_upstream_up\{upstream="lean"\} 1/);
  });

  it('records a span per call with an OpenTelemetry tracer and sends its context upstream', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const { url, upstreams } = await setup({ tracer: provider.getTracer('forwarder-test') });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await rpc(
      `${url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'lean__echo', arguments: { text: 'x' }, _meta: { traceparent } },
      },
      { 'mcp-name': 'lean__echo' },
    );
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).toBe('tools/call lean__echo');
    expect(span!.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(span!.attributes['toolwire.outcome']).toBe('ok');
    const seen = upstreams.lean!.received.find((r) => r.method === 'tools/call')!;
    expect((seen.params._meta as Record<string, unknown>).traceparent).toBe(
      `00-0af7651916cd43dd8448eb211c80319c-${span!.spanContext().spanId}-01`,
    );
  });

  it('propagates an incoming traceparent to the upstream in _meta and the HTTP header', async () => {
    const { url, upstreams } = await setup();
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await rpc(
      `${url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'lean__echo', arguments: { text: 'x' }, _meta: { traceparent } },
      },
      { 'mcp-method': 'tools/call', 'mcp-name': 'lean__echo' },
    );
    const seen = upstreams.lean!.received.find((r) => r.method === 'tools/call')!;
    expect((seen.params._meta as Record<string, unknown>).traceparent).toBe(traceparent);
    expect(seen.headers.traceparent).toBe(traceparent);
  });
});

describe('routes', () => {
  it('sends tools/list_changed to an open 2025-era GET stream when an upstream changes', async () => {
    const { url, source, upstreams } = await setup();
    const init = await rpc(
      `${url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        },
      },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    const session = init.headers.get('mcp-session-id')!;
    const controller = new AbortController();
    const stream = await fetch(`${url}/mcp`, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      },
      signal: controller.signal,
    });
    const reader = stream.body!.getReader();
    await reader.read();
    upstreams.lean!.setTools([{ name: 'fresh', inputSchema: { type: 'object' } }]);
    await source.refresh('lean');
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain('notifications/tools/list_changed');
    controller.abort();
    const list = await rpc(
      `${url}/mcp`,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { 'mcp-method': 'tools/list' },
    );
    expect(list.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['lean__fresh']);
  });

  it('delivers tools/list_changed on a 2026-07-28 subscriptions/listen stream, and acknowledges prompt list changes too', async () => {
    const { url, source } = await setup();
    const controller = new AbortController();
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'sub-1',
        method: 'subscriptions/listen',
        params: {
          notifications: { toolsListChanged: true, promptsListChanged: true },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const reader = response.body!.getReader();
    const ack = new TextDecoder().decode((await reader.read()).value);
    expect(ack).toContain('notifications/subscriptions/acknowledged');
    // Prompt and resource list changes are honoured as well now (they were tools only).
    expect(ack).toContain('"notifications":{"toolsListChanged":true,"promptsListChanged":true}');
    await source.refresh('lean');
    const change = new TextDecoder().decode((await reader.read()).value);
    expect(change).toContain('notifications/tools/list_changed');
    expect(change).toContain('"io.modelcontextprotocol/subscriptionId":"sub-1"');
    controller.abort();
  });

  it('passes one upstream through /servers/<name>/mcp under its own names, policy still applied', async () => {
    const { url } = await setup({ config: { policy: { block: ['lean__write'] } } });
    const client = await sdkClient(`${url}/servers/lean/mcp`, 'legacy');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo', 'lookup', 'sleep', 'fail', 'ask']);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'direct' } });
    expect(result.content).toEqual([{ type: 'text', text: 'direct' }]);
    await expect(client.callTool({ name: 'write', arguments: { path: 'x' } })).rejects.toThrow(
      /Unknown tool: write/,
    );
    const missing = await rpc(
      `${url}/servers/nope/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { 'mcp-method': 'ping' },
    );
    expect(missing.status).toBe(404);
  });

  it('applies name rules on the passthrough route even to tools the registry has not listed', async () => {
    const { url, upstreams } = await setup({ config: { policy: { block: ['lean__secret*'] } } });
    const refused = await call(`${url}/servers/lean/mcp`, 'secret_tool', {});
    expect(refused.body.error).toEqual({
      code: -32602,
      message: 'Unknown tool: secret_tool',
      data: { tool: 'secret_tool' },
    });
    expect(upstreams.lean!.received.some((r) => r.method === 'tools/call')).toBe(false);
  });

  it('runs a batch grouped by upstream in parallel, one failure not failing the rest', async () => {
    const { forwarder, upstreams } = await setup({ kinds: { a: 'both', b: 'modern' } });
    const results = await forwarder.batch([
      { name: 'a__echo', arguments: { text: '1' } },
      { name: 'b__echo', arguments: { text: '2' } },
      { name: 'a__nope', arguments: {} },
      { name: 'b__lookup', arguments: { key: 'z' } },
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, true, false, true]);
    expect(results[1]).toMatchObject({ ok: true, result: { content: [{ text: '2' }] } });
    expect(upstreams.a!.counts.get('echo')).toBe(1);
    expect(upstreams.b!.counts.get('echo')).toBe(1);
  });

  it('serves MCP over stdio', async () => {
    const { forwarder } = await setup();
    const input = new PassThrough();
    const output = new PassThrough();
    const server = serveStdio(forwarder, input, output);
    cleanups.push(async () => server.close());
    const lines: any[] = [];
    output.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
    });
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
    );
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'lean__echo', arguments: { text: 'stdio' } } })}\n`,
    );
    input.write('not json\n');
    await vi.waitFor(() => expect(lines.length).toBeGreaterThanOrEqual(3));
    expect(lines.find((l) => l.id === 1).result.serverInfo.name).toBe('toolwire-forwarder');
    expect(lines.find((l) => l.id === 2).result.content[0].text).toBe('stdio');
    expect(lines.find((l) => l.error?.code === -32700)).toBeDefined();
  });
});
