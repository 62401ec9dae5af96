import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { CallTracer, traceHeadersOf, withTraceHeaders } from './tracing.js';

describe('CallTracer', () => {
  it('continues the caller trace from _meta.traceparent and hands the child span upstream', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const tracer = new CallTracer(provider.getTracer('test'));
    const incoming = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
    const { span, ctx } = tracer.start('fs__read', 'fs', incoming);
    const outgoing = tracer.inject(ctx, incoming);
    tracer.end(span, 'ok');
    const [finished] = exporter.getFinishedSpans();
    expect(finished!.name).toBe('tools/call fs__read');
    expect(finished!.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(finished!.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(finished!.attributes['gen_ai.tool.name']).toBe('fs__read');
    expect(outgoing.traceparent).toBe(
      `00-4bf92f3577b34da6a3ce929d0e0e4736-${finished!.spanContext().spanId}-01`,
    );
  });

  it('passes the incoming traceparent on unchanged without an SDK, and invents none', () => {
    const tracer = new CallTracer();
    const incoming = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
    const { ctx } = tracer.start('x', 'y', incoming);
    expect(tracer.inject(ctx, incoming)).toEqual(incoming);
    const none = tracer.start('x', 'y', undefined);
    expect(tracer.inject(none.ctx, undefined)).toEqual({});
    expect(tracer.inject(none.ctx, { traceparent: 'garbage' })).toEqual({});
  });
});

describe('traceHeadersOf / withTraceHeaders', () => {
  const header = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

  it("reads a well-formed traceparent header and its tracestate; _meta's own traceparent wins", () => {
    const headers = traceHeadersOf({ traceparent: header, tracestate: 'k=v' });
    expect(headers).toEqual({ traceparent: header, tracestate: 'k=v' });
    expect(withTraceHeaders({ progressToken: 1 }, headers)).toEqual({
      progressToken: 1,
      traceparent: header,
      tracestate: 'k=v',
    });
    const own = { traceparent: '00-11111111111111111111111111111111-2222222222222222-01' };
    expect(withTraceHeaders(own, headers)).toBe(own);
  });

  it('ignores a malformed, repeated or absent header', () => {
    expect(traceHeadersOf({ traceparent: 'not-a-trace', tracestate: 'k=v' })).toEqual({});
    expect(traceHeadersOf({ traceparent: [header, header] })).toEqual({});
    expect(traceHeadersOf({})).toEqual({});
    expect(withTraceHeaders(undefined, {})).toBeUndefined();
  });
});
