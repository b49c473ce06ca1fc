// The OpenTelemetry SDK as an application registers it, for the telemetry benches: with traces,
// what NodeSDK installs (an AsyncLocalStorage context manager, the W3C trace context and baggage
// propagators) and a BatchSpanProcessor into an exporter that drops spans (the SDK's full cost,
// no I/O); metrics read by the Prometheus exporter.
import { context, metrics, propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
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
  if (contextManager) {
    context.setGlobalContextManager(contextManager);
    // An application that traces has made a context active by now (its HTTP instrumentation does
    // on the first request), which turns on Node's async hooks for every promise from then on:
    // a cost of the SDK to the whole process, measured apart by bench 9's "app traced" side.
    context.with(ROOT_CONTEXT, () => undefined);
    propagation.setGlobalPropagator(
      new CompositePropagator({
        propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
      }),
    );
  }
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
    propagation.disable();
    metrics.disable();
    context.disable();
  };
}

/**
 * The least any library can do to run a handler call in its own CONSUMER span through the
 * application's SDK: extract the publisher's context, start the span, make it active around
 * the call, end it. No attributes, no status, no metrics. Measured beside the library's
 * instrumentation to tell the SDK's share of the cost from the library's (with
 * minimalPublishSpans on the publishing side).
 */
export function minimalSpans(name, handler) {
  const tracer = trace.getTracer('minimal-spans');
  const kind = { kind: SpanKind.CONSUMER };
  return (payload, message) => {
    const parent = propagation.extract(ROOT_CONTEXT, message.headers);
    const span = tracer.startSpan(name, kind, parent);
    try {
      return context.with(trace.setSpan(parent, span), handler, undefined, payload, message);
    } finally {
      span.end();
    }
  };
}

/**
 * The least a library can do to trace a publish through the application's SDK: a PRODUCER span
 * whose context the propagators write into the headers, ended once `send(headers)` settles.
 * Returns the wrapper for publishes to `name`.
 */
export function minimalPublishSpans(name) {
  const tracer = trace.getTracer('minimal-spans');
  const kind = { kind: SpanKind.PRODUCER };
  return async (send) => {
    const span = tracer.startSpan(name, kind);
    const headers = {};
    propagation.inject(trace.setSpan(context.active(), span), headers);
    try {
      return await send(headers);
    } finally {
      span.end();
    }
  };
}
