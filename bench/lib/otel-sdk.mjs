// The OpenTelemetry SDK as an application registers it, for the telemetry benches: an
// AsyncLocalStorage context manager, traces through a BatchSpanProcessor into an exporter that
// drops them (the SDK's full cost, no I/O), metrics read by the Prometheus exporter.
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';

/** Spans are built, batched and handed over, then dropped: the SDK's full cost, no I/O. */
const discardingExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: async () => undefined,
};

/** `tracing`: false (metrics only), 'ratio' (1 in 100 traces) or 'all' (every span). */
export function registerSdk(tracing) {
  const contextManager = tracing ? new AsyncLocalStorageContextManager().enable() : undefined;
  if (contextManager) context.setGlobalContextManager(contextManager);
  const tracerProvider = tracing
    ? new BasicTracerProvider({
        spanProcessors: [new BatchSpanProcessor(discardingExporter)],
        ...(tracing === 'ratio' && {
          sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.01) }),
        }),
      })
    : undefined;
  if (tracerProvider) trace.setGlobalTracerProvider(tracerProvider);
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ readers: [prometheus] });
  metrics.setGlobalMeterProvider(meterProvider);
  return async () => {
    // One collection, as a scrape would do, so the observable callbacks run too.
    await prometheus.collect();
    await Promise.all([tracerProvider?.shutdown(), meterProvider.shutdown()]);
    trace.disable();
    metrics.disable();
    context.disable();
  };
}
