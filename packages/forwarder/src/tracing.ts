import {
  context,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';

const TRACEPARENT = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/;

function parentContext(carrier: Record<string, unknown> | undefined): Context {
  const active = context.active();
  const header = carrier?.traceparent;
  if (typeof header !== 'string' || !TRACEPARENT.test(header)) return active;
  const [version, traceId, spanId, flags] = header.split('-') as [string, string, string, string];
  if (version === 'ff') return active;
  const spanContext = { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
  return isSpanContextValid(spanContext) ? trace.setSpanContext(active, spanContext) : active;
}

/** The W3C Trace Context headers of an HTTP request, as a `_meta`-style carrier. */
export interface TraceHeaders {
  traceparent?: string;
  tracestate?: string;
}

/** The `traceparent`/`tracestate` headers of a request (only a single, well-formed `traceparent`). */
export function traceHeadersOf(
  headers: Record<string, string | string[] | undefined>,
): TraceHeaders {
  const traceparent = headers.traceparent;
  if (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent.trim())) return {};
  const tracestate = headers.tracestate;
  return {
    traceparent: traceparent.trim(),
    ...(typeof tracestate === 'string' ? { tracestate } : {}),
  };
}

/**
 * A call's `_meta` with the request's trace headers filled in when it carries no `traceparent` of
 * its own: `_meta.traceparent` (the MCP convention) wins over the HTTP header.
 */
export function withTraceHeaders(
  meta: Record<string, unknown> | undefined,
  headers: TraceHeaders | undefined,
): Record<string, unknown> | undefined {
  if (!headers?.traceparent || typeof meta?.traceparent === 'string') return meta;
  return { ...meta, ...headers };
}

/**
 * Spans around tool calls. The parent comes from `_meta.traceparent` (the 2026-07-28 convention)
 * or the HTTP `traceparent` header; the child's context goes on to the upstream in `_meta` and the
 * HTTP header. With no OpenTelemetry SDK registered the spans are no-ops and an incoming
 * `traceparent` is passed on unchanged.
 */
export class CallTracer {
  private readonly tracer: Tracer;

  constructor(tracer?: Tracer) {
    this.tracer = tracer ?? trace.getTracer('@toolwire/forwarder');
  }

  start(
    tool: string,
    upstream: string,
    carrier: Record<string, unknown> | undefined,
    client?: string,
  ): { span: Span; ctx: Context } {
    const parent = parentContext(carrier);
    const span = this.tracer.startSpan(
      `tools/call ${tool}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': tool,
          'toolwire.upstream': upstream,
          ...(client !== undefined ? { 'toolwire.client': client } : {}),
        },
      },
      parent,
    );
    return { span, ctx: trace.setSpan(parent, span) };
  }

  /** The `traceparent` (and `tracestate`) to send upstream. */
  inject(ctx: Context, incoming: Record<string, unknown> | undefined): Record<string, string> {
    const spanContext = trace.getSpanContext(ctx);
    if (!spanContext || !isSpanContextValid(spanContext) || spanContext.isRemote) {
      // No OpenTelemetry SDK (a non-recording span): keep the caller's trace intact.
      if (
        incoming &&
        typeof incoming.traceparent === 'string' &&
        TRACEPARENT.test(incoming.traceparent)
      ) {
        const kept: Record<string, string> = { traceparent: incoming.traceparent };
        if (typeof incoming.tracestate === 'string') kept.tracestate = incoming.tracestate;
        return kept;
      }
      return {};
    }
    const flags = spanContext.traceFlags.toString(16).padStart(2, '0');
    const out: Record<string, string> = {
      traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`,
    };
    const state = spanContext.traceState?.serialize();
    if (state) out.tracestate = state;
    return out;
  }

  end(span: Span, outcome: string, error?: string): void {
    span.setAttribute('toolwire.outcome', outcome);
    if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
    span.end();
  }
}
