import { trace } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

/** A running OpenTelemetry trace pipeline: flush and stop it on shutdown. */
export interface Telemetry {
  /** Where spans go, for the startup log line. */
  readonly exporter: string;
  shutdown(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/**
 * Sets up the OpenTelemetry tracing SDK from the standard `OTEL_*` variables, as a collector
 * expects: `OTEL_TRACES_EXPORTER` (`otlp` (default once an endpoint is set), `console`, `none`),
 * `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the default, or `http/json`), `OTEL_SERVICE_NAME`
 * and `OTEL_RESOURCE_ATTRIBUTES`; `OTEL_SDK_DISABLED=true` turns it off. With none of them set it
 * loads nothing and registers nothing: the forwarder's spans stay OpenTelemetry's no-ops.
 */
export async function setupTelemetry(
  env: Env = process.env,
  warn: (message: string) => void = () => undefined,
): Promise<Telemetry | undefined> {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const chosen = (env.OTEL_TRACES_EXPORTER ?? (endpoint ? 'otlp' : 'none'))
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '' && name !== 'none');
  if (chosen.length === 0) return undefined;

  const [{ BasicTracerProvider, BatchSpanProcessor, ConsoleSpanExporter }, resources] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/resources'),
    ]);
  const exporters: Array<{ name: string; exporter: SpanExporter }> = [];
  for (const name of chosen) {
    if (name === 'console') exporters.push({ name, exporter: new ConsoleSpanExporter() });
    else if (name === 'otlp') {
      const protocol = (
        env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
        env.OTEL_EXPORTER_OTLP_PROTOCOL ??
        'http/protobuf'
      ).trim();
      if (protocol === 'http/json') {
        const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
        exporters.push({ name: 'otlp http/json', exporter: new OTLPTraceExporter() });
      } else {
        if (protocol !== 'http/protobuf')
          warn(
            `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported here; using http/protobuf`,
          );
        const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
        exporters.push({ name: 'otlp http/protobuf', exporter: new OTLPTraceExporter() });
      }
    } else warn(`OTEL_TRACES_EXPORTER: unknown exporter "${name}" ignored (otlp, console, none)`);
  }
  if (exporters.length === 0) return undefined;

  const resource = resources
    .resourceFromAttributes({ 'service.name': 'toolwire-server' })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: exporters.map(({ exporter }) => new BatchSpanProcessor(exporter)),
  });
  trace.setGlobalTracerProvider(provider);
  return {
    exporter: exporters.map(({ name }) => name).join(', '),
    async shutdown() {
      await provider.shutdown();
      trace.disable();
    },
  };
}
