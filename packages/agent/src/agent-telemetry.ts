import {
  context,
  isSpanContextValid,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import {
  formatTraceparent,
  parseTraceparent,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ToolCall,
  type ToolResult,
} from '@toolwire/schema';

// OpenTelemetry GenAI semantic conventions (gen_ai.*): one `invoke_agent` span per run, a `chat`
// span per model request and an `execute_tool` span per tool call, children of the run's span.

// What the global tracer provider delegates to while no OpenTelemetry SDK is registered.
const NO_SDK = new ProxyTracerProvider().getDelegate();

/**
 * The tracer of a run: the one given, else the global provider's, or none while no OpenTelemetry
 * SDK is registered (then the run makes no spans at all, not even no-op ones). Asked per run, so
 * an SDK registered after the agent was created is used.
 */
export function runTracer(given: Tracer | undefined): Tracer | undefined {
  if (given) return given;
  const provider = trace.getTracerProvider();
  if (provider instanceof ProxyTracerProvider && provider.getDelegate() === NO_SDK)
    return undefined;
  return provider.getTracer('@toolwire/agent');
}

/**
 * The context a run's span starts in: the caller's W3C `traceparent` (what a gateway received on
 * the request), else the active context, so the run joins the caller's trace.
 */
export function callerContext(traceparent: string | undefined): Context {
  const active = context.active();
  const fields = parseTraceparent(traceparent);
  return fields ? trace.setSpanContext(active, { ...fields, isRemote: true }) : active;
}

/** The W3C `traceparent` of a span (what a tool passes on to the services it calls). */
export function traceparentOf(span: Span | undefined): string | undefined {
  if (!span) return undefined;
  const spanContext = span.spanContext();
  return isSpanContextValid(spanContext) ? formatTraceparent(spanContext) : undefined;
}

export function startAgentSpan(
  tracer: Tracer | undefined,
  parent: Context,
  agentName: string,
  model: ChatModel,
): { span: Span | undefined; context: Context } {
  if (!tracer) return { span: undefined, context: parent };
  const span = tracer.startSpan(
    `invoke_agent ${agentName}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': agentName,
        'gen_ai.provider.name': model.provider,
        'gen_ai.request.model': model.modelId,
      },
    },
    parent,
  );
  return { span, context: trace.setSpan(parent, span) };
}

export function startChatSpan(
  tracer: Tracer | undefined,
  parent: Context,
  model: ChatModel,
  request: ChatRequest,
): Span | undefined {
  if (!tracer) return undefined;
  const span = tracer.startSpan(`chat ${model.modelId}`, { kind: SpanKind.CLIENT }, parent);
  if (span.isRecording()) {
    span.setAttributes({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': model.provider,
      'gen_ai.request.model': model.modelId,
      ...(request.temperature !== undefined
        ? { 'gen_ai.request.temperature': request.temperature }
        : {}),
      ...(request.maxOutputTokens !== undefined
        ? { 'gen_ai.request.max_tokens': request.maxOutputTokens }
        : {}),
    });
  }
  return span;
}

export function endChatSpan(span: Span | undefined, response: ChatResponse): void {
  if (!span) return;
  if (span.isRecording()) {
    span.setAttributes({
      'gen_ai.response.model': response.modelId,
      'gen_ai.response.finish_reasons': [response.rawFinishReason ?? response.finishReason],
      'gen_ai.usage.input_tokens': response.usage.inputTokens,
      'gen_ai.usage.output_tokens': response.usage.outputTokens,
      ...(response.responseId !== undefined ? { 'gen_ai.response.id': response.responseId } : {}),
      ...(response.usage.cachedInputTokens !== undefined
        ? { 'gen_ai.usage.cache_read.input_tokens': response.usage.cachedInputTokens }
        : {}),
    });
  }
  span.end();
}

export function startToolSpan(
  tracer: Tracer | undefined,
  parent: Context,
  call: ToolCall,
): Span | undefined {
  if (!tracer) return undefined;
  return tracer.startSpan(
    `execute_tool ${call.name}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.name,
        'gen_ai.tool.call.id': call.id,
        'gen_ai.tool.type': 'function',
      },
    },
    parent,
  );
}

export function endToolSpan(span: Span | undefined, result: ToolResult): void {
  if (!span) return;
  if (result.isError) {
    span.setAttribute('error.type', result.error?.category ?? 'tool_error');
    span.setStatus({ code: SpanStatusCode.ERROR, message: result.error?.message ?? 'tool error' });
  }
  span.end();
}

/** Ends a span with the error that ended its work. */
export function failSpan(span: Span | undefined, error: unknown): void {
  if (!span) return;
  const code = (error as { code?: unknown } | null)?.code;
  span.setAttribute(
    'error.type',
    typeof code === 'string' ? code : ((error as Error | null)?.name ?? 'Error'),
  );
  span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error | null)?.message ?? '' });
  span.end();
}
