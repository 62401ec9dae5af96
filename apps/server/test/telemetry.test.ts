/* eslint-disable @typescript-eslint/no-explicit-any -- OTLP JSON is read field by field */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupTelemetry } from '../src/telemetry.js';
import { startBinary, waitFor } from './helpers.js';

/** OTLP/HTTP ids are hex in the JSON encoding; some exporters send base64. */
function hexId(id: string): string {
  return /^[\da-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

function attributes(span: any): Record<string, unknown> {
  return Object.fromEntries(
    (span.attributes ?? []).map((a: any) => [a.key, Object.values(a.value ?? {})[0]]),
  );
}

describe('setupTelemetry', () => {
  it('loads and registers nothing when no OTEL_* variable asks for it', async () => {
    expect(await setupTelemetry({})).toBeUndefined();
    expect(await setupTelemetry({ OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
    expect(
      await setupTelemetry({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
        OTEL_SDK_DISABLED: 'true',
      }),
    ).toBeUndefined();
    expect(
      await setupTelemetry({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
        OTEL_TRACES_EXPORTER: 'none',
      }),
    ).toBeUndefined();
  });
});

// A local OTLP/HTTP receiver (JSON) and the real binary configured only through OTEL_* variables.
describe('toolwire-server telemetry', () => {
  let receiver: Server;
  let endpoint: string;
  const spans: Array<{ resource: any; span: any }> = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        if (req.url === '/v1/traces' && req.headers['content-type']?.includes('json')) {
          const parsed = JSON.parse(body);
          for (const rs of parsed.resourceSpans ?? [])
            for (const ss of rs.scopeSpans ?? [])
              for (const span of ss.spans ?? []) spans.push({ resource: rs.resource, span });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  for (const mode of ['legacy', 'auto'] as const) {
    it(`exports a call's span with tool, upstream, client and outcome under the caller's trace (${mode})`, async () => {
      const bin = await startBinary(
        {
          nativeTools: [],
          mcpServers: { fx: fixtureStdioConfig({ tools: ['add'] }) },
          auth: { tokens: [{ token: 'ci-token', client: 'ci', allow: ['*'] }] },
        },
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_SERVICE_NAME: `toolwire-test-${mode}`,
          OTEL_BSP_SCHEDULE_DELAY: '50',
        },
      );
      const client = new Client({ name: 'otel', version: '1' }, {
        versionNegotiation: { mode },
      } as never);
      try {
        expect(bin.stderr()).toMatch(/traces exported \(otlp http\/json\)/);
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${bin.url}/mcp`), {
            requestInit: { headers: { authorization: 'Bearer ci-token' } },
          }),
        );
        const traceId = mode === 'legacy' ? 'a'.repeat(32) : 'b'.repeat(32);
        const parentId = mode === 'legacy' ? '1'.repeat(16) : '2'.repeat(16);
        const result = await client.callTool({
          name: 'fx__add',
          arguments: { a: 1, b: 2 },
          _meta: { traceparent: `00-${traceId}-${parentId}-01` },
        });
        expect(result.structuredContent).toEqual({ sum: 3 });
        const found = await waitFor(
          () => spans.find(({ span }) => hexId(span.traceId) === traceId),
          'the span at the OTLP receiver',
        );
        expect(found.span.name).toBe('tools/call fx__add');
        expect(hexId(found.span.parentSpanId)).toBe(parentId);
        expect(attributes(found.span)).toMatchObject({
          'gen_ai.tool.name': 'fx__add',
          'toolwire.upstream': 'fx',
          'toolwire.client': 'ci',
          'toolwire.outcome': 'ok',
        });
        expect(attributes(found.resource)).toMatchObject({
          'service.name': `toolwire-test-${mode}`,
        });
      } finally {
        await client.close().catch(() => {});
        await bin.stop();
      }
    });
  }

  for (const mode of ['legacy', 'auto'] as const) {
    it(`takes the HTTP traceparent header as the parent, _meta.traceparent winning; a script's calls are children of execute_code (${mode})`, async () => {
      const bin = await startBinary(
        {
          nativeTools: [],
          mcpServers: { fx: fixtureStdioConfig({ tools: ['add'] }) },
          // fx__add is not listed (code mode), but stays callable by name.
          codeMode: { enabled: true },
        },
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_SERVICE_NAME: `toolwire-header-${mode}`,
          OTEL_BSP_SCHEDULE_DELAY: '50',
        },
      );
      const client = new Client({ name: 'otel-header', version: '1' }, {
        versionNegotiation: { mode },
      } as never);
      const traceId = mode === 'legacy' ? 'c'.repeat(32) : 'd'.repeat(32);
      const headerParent = mode === 'legacy' ? '3'.repeat(16) : '4'.repeat(16);
      try {
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${bin.url}/mcp`), {
            requestInit: { headers: { traceparent: `00-${traceId}-${headerParent}-01` } },
          }),
        );
        const spansOf = (name: string) =>
          spans.filter(
            ({ span }) => hexId(span.traceId) === traceId && span.name === `tools/call ${name}`,
          );

        // The header alone: the call's span is its child.
        await client.callTool({ name: 'fx__add', arguments: { a: 1, b: 2 } });
        const fromHeader = await waitFor(() => spansOf('fx__add')[0], 'the span of fx__add');
        expect(hexId(fromHeader.span.parentSpanId)).toBe(headerParent);

        // Both: params._meta wins.
        const metaTrace = mode === 'legacy' ? 'e'.repeat(32) : 'f'.repeat(32);
        const metaParent = mode === 'legacy' ? '5'.repeat(16) : '6'.repeat(16);
        await client.callTool({
          name: 'fx__add',
          arguments: { a: 2, b: 2 },
          _meta: { traceparent: `00-${metaTrace}-${metaParent}-01` },
        });
        const fromMeta = await waitFor(
          () => spans.find(({ span }) => hexId(span.traceId) === metaTrace),
          'the span under _meta.traceparent',
        );
        expect(hexId(fromMeta.span.parentSpanId)).toBe(metaParent);

        // execute_code under the header's trace; the script's call is a child of its span.
        const run = await client.callTool({
          name: 'execute_code',
          arguments: { code: 'return await fx__add({ a: 3, b: 4 });' },
        });
        expect(run.structuredContent).toMatchObject({ ok: true, returned: { sum: 7 } });
        const executeCode = await waitFor(
          () => spansOf('execute_code')[0],
          'the span of execute_code',
        );
        expect(hexId(executeCode.span.parentSpanId)).toBe(headerParent);
        const inner = await waitFor(
          () =>
            spansOf('fx__add').find(
              ({ span }) => span.parentSpanId !== fromHeader.span.parentSpanId,
            ),
          "the span of the script's call",
        );
        expect(hexId(inner.span.parentSpanId)).toBe(hexId(executeCode.span.spanId));
      } finally {
        await client.close().catch(() => {});
        await bin.stop();
      }
    });
  }
});
