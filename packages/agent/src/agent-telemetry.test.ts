import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { defineTool, ProviderError } from '@toolwire/schema';
import { describe, expect, it } from 'vitest';
import { createScriptedModel } from '../test/scripted-chat-model.js';
import { createAgent } from './create-agent.js';

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('agent-test') };
}

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';

describe('agent telemetry (OpenTelemetry GenAI spans)', () => {
  it('records a run span under the caller, a chat span per model request and an execute_tool span per call', async () => {
    const { exporter, tracer } = tracing();
    const seen: Array<string | undefined> = [];
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look a word up in the dictionary',
      inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
      execute: ({ word }, context) => {
        seen.push(context.traceparent);
        return `${String(word)}: a word`;
      },
    });
    const model = createScriptedModel([
      {
        toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { word: 'tool' } }],
        usage: { inputTokens: 120, outputTokens: 12, totalTokens: 132 },
      },
      { text: 'A tool is a word.', usage: { inputTokens: 150, outputTokens: 8, totalTokens: 158 } },
    ]);
    const agent = createAgent({
      model,
      tools: [lookup],
      temperature: 0.2,
      telemetry: { tracer, agentName: 'dictionary' },
    });
    await agent.run('What is a tool?', { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` });

    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name)).toEqual([
      'chat scripted-1',
      'execute_tool lookup',
      'chat scripted-1',
      'invoke_agent dictionary',
    ]);
    const run = spans.at(-1)!;
    expect(spans.every((span) => span.spanContext().traceId === TRACE_ID)).toBe(true);
    expect(run.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    for (const span of spans.slice(0, 3))
      expect(span.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    expect(spans[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'scripted-1',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.response.model': 'scripted-1',
      'gen_ai.response.finish_reasons': ['tool-calls'],
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 12,
    });
    expect(spans[1]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': 'call_1',
    });
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'dictionary',
      'gen_ai.usage.input_tokens': 270,
      'gen_ai.usage.output_tokens': 20,
    });
    // The tool gets its span's traceparent, to pass on to what it calls (the gateway joins the trace).
    expect(seen).toEqual([`00-${TRACE_ID}-${spans[1]!.spanContext().spanId}-01`]);
  });

  it('marks a failed model request and the run with the error', async () => {
    const { exporter, tracer } = tracing();
    const model = createScriptedModel([
      { error: new ProviderError('authentication', { provider: 'scripted', message: 'bad key' }) },
    ]);
    await expect(
      createAgent({ model, telemetry: { tracer }, maxRetries: 0 }).run('hi'),
    ).rejects.toThrow('bad key');
    const [chat, run] = exporter.getFinishedSpans();
    expect(chat!.attributes['error.type']).toBe('authentication');
    expect(chat!.status.code).toBe(2);
    expect(run!.name).toBe('invoke_agent toolwire-agent');
    expect(run!.status.code).toBe(2);
  });
});
