/**
 * The `telemetry` option against the real broker, with the SDK's tracer and meter providers
 * registered as a tracing application registers them: `{ traces: false }` keeps the metrics but
 * makes no span and writes no trace header; `{ metrics: false }` keeps the spans and records
 * nothing through the meter.
 */
import { context, metrics, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { useEngineHarness } from '../support/engine/engine.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { OnDemandReader } from '../support/telemetry/on-demand-reader.js';
import { waitFor } from '../support/broker/kafka.js';

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});
const reader = new OnDemandReader();
const meterProvider = new MeterProvider({ readers: [reader] });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
});

afterAll(async () => {
  await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
  trace.disable();
  metrics.disable();
  context.disable();
});

/** broadcast.messages.handled for `topic`, summed over handlers and instances. */
async function handled(topic: string): Promise<number | undefined> {
  const { resourceMetrics } = await reader.collect();
  let total: number | undefined;
  for (const scope of resourceMetrics.scopeMetrics)
    for (const metric of scope.metrics) {
      if (metric.descriptor.name !== 'broadcast.messages.handled') continue;
      for (const p of metric.dataPoints)
        if (p.attributes['messaging.destination.name'] === topic)
          total = (total ?? 0) + (p.value as number);
    }
  return total;
}

/** The library's spans of `topic` (its publish and process spans). */
const librarySpans = (topic: string) =>
  exporter
    .getFinishedSpans()
    .filter((s) => s.name === `publish ${topic}` || s.name === `process ${topic}`);

describe.each(kafkaClients())('The telemetry option, %s client', (client) => {
  it('traces: false counts every call but makes no span and writes no trace header', async () => {
    const h = useEngineHarness('otel-notrace', { telemetry: { traces: false } }, client);
    const [a, b] = await h.startMany(2, { lock: 'none', topics: ['orders'] });
    await h.allReady([a!, b!]);
    const topic = h.topic('orders');

    // Published inside an application span: still no trace header.
    const outer = trace.getTracer('test').startSpan('checkout');
    await context.with(trace.setSpan(context.active(), outer), () =>
      a!.engine.publisher.publish('orders', { id: 1 }),
    );
    outer.end();
    await waitFor(() => [a, b].every((e) => e!.payloads('orders').length === 1));

    for (const e of [a!, b!]) {
      const [{ message }] = e.messages.get('orders')!;
      expect(Object.keys(message.headers)).not.toContain('traceparent');
    }
    await waitFor(async () => (await handled(topic)) === 2);
    expect(librarySpans(topic)).toEqual([]);
    // The application's own span was recorded: the SDK traces, the library does not.
    expect(exporter.getFinishedSpans().map((s) => s.name)).toContain('checkout');
  });

  it('metrics: false keeps the spans and records nothing through the meter', async () => {
    const h = useEngineHarness('otel-nometrics', { telemetry: { metrics: false } }, client);
    const [a, b] = await h.startMany(2, { lock: 'none', topics: ['orders'] });
    await h.allReady([a!, b!]);
    const topic = h.topic('orders');

    await a!.engine.publisher.publish('orders', { id: 2 });
    await waitFor(() => [a, b].every((e) => e!.payloads('orders').length === 1));
    const consumers = await waitFor(() => {
      const found = librarySpans(topic).filter((s) => s.kind === SpanKind.CONSUMER);
      return found.length === 2 ? found : undefined;
    });
    const [producer] = librarySpans(topic).filter((s) => s.kind === SpanKind.PRODUCER);
    for (const span of consumers)
      expect(span.spanContext().traceId).toBe(producer!.spanContext().traceId);
    expect(await handled(topic)).toBeUndefined();
  });
});
