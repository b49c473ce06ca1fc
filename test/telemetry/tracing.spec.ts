/**
 * OpenTelemetry tracing against the real broker, with the SDK's in-memory exporter: a publish
 * in engine A is a PRODUCER span whose W3C context travels in the Kafka headers, and the
 * handler calls in engines B and C are CONSUMER spans of the same trace with the messaging
 * attributes; failing and timed-out handlers end with an error status.
 */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { useEngineHarness } from '../support/engine/engine.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { waitFor } from '../support/broker/kafka.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
});

afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});

const spans = (kind: SpanKind, name: string): ReadableSpan[] =>
  exporter.getFinishedSpans().filter((s) => s.kind === kind && s.name === name);

describe.each(kafkaClients())('Tracing with @opentelemetry/api, %s client', (client) => {
  it('a publish in A yields handler spans in B and C with the same trace id', async () => {
    const h = useEngineHarness('otel-trace', {}, client);
    const [a, b, c] = await h.startMany(3, { lock: 'none', topics: ['orders'] });
    await h.allReady([a!, b!, c!]);
    exporter.reset();

    // The publisher's own context is the parent of its PRODUCER span.
    const outer = trace.getTracer('test').startSpan('checkout');
    await context.with(trace.setSpan(context.active(), outer), () =>
      a!.engine.publisher.publish('orders', { id: 7 }, { key: 'order-7' }),
    );
    outer.end();
    await waitFor(() => [a, b, c].every((e) => e!.payloads('orders').length === 1));

    const topic = h.topic('orders');
    const [producer] = spans(SpanKind.PRODUCER, `publish ${topic}`);
    expect(producer).toBeDefined();
    expect(producer!.spanContext().traceId).toBe(outer.spanContext().traceId);
    expect(producer!.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(producer!.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.destination.name': topic,
      'messaging.operation.type': 'send',
    });

    const consumers = await waitFor(() => {
      const found = spans(SpanKind.CONSUMER, `process ${topic}`);
      return found.length === 3 ? found : undefined;
    });
    const groups = [a, b, c].map((e) => e!.status().groupId);
    expect(consumers.map((s) => s.attributes['messaging.consumer.group.name']).sort()).toEqual(
      [...groups].sort(),
    );
    for (const span of consumers) {
      expect(span.spanContext().traceId).toBe(producer!.spanContext().traceId);
      expect(span.parentSpanContext?.spanId).toBe(producer!.spanContext().spanId);
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(span.attributes).toMatchObject({
        'messaging.system': 'kafka',
        'messaging.destination.name': topic,
        'messaging.destination.partition.id': '0',
        'messaging.kafka.offset': 0,
        'messaging.kafka.message.key': 'order-7',
        'messaging.message.id': `${topic}-0@0`,
        'messaging.operation.type': 'process',
      });
    }
  });

  it('failing and timed-out handlers end their spans with an error status; heartbeats make no spans', async () => {
    const h = useEngineHarness('otel-fail', { handlerTimeoutMs: 300 }, client);
    const [e] = await h.startMany(1, {
      lock: 'none',
      options: { heartbeat: { intervalMs: 200 } },
      register: (engine) =>
        engine
          .on(
            'jobs',
            () => {
              throw new TypeError('bad job');
            },
            'thrower',
          )
          .on('jobs', () => new Promise(() => undefined), 'hanger')
          .on(
            'jobs',
            async () => {
              // A span the handler starts nests under the CONSUMER span.
              trace.getTracer('test').startSpan('inside').end();
            },
            'nester',
          ),
    });
    await h.allReady([e!]);
    await waitFor(() => e!.engine.heartbeat.sent >= 2);
    exporter.reset();
    await e!.engine.publisher.publish('jobs', { n: 1 });

    const topic = h.topic('jobs');
    const byHandler = await waitFor(() => {
      const found = spans(SpanKind.CONSUMER, `process ${topic}`);
      return found.length === 3
        ? new Map(found.map((s) => [s.attributes['broadcast.handler'], s]))
        : undefined;
    });
    const thrower = byHandler.get('thrower')!;
    expect(thrower.status).toEqual({ code: SpanStatusCode.ERROR, message: 'bad job' });
    expect(thrower.attributes['error.type']).toBe('TypeError');
    expect(thrower.events.map((ev) => ev.name)).toContain('exception');
    const hanger = byHandler.get('hanger')!;
    expect(hanger.status.code).toBe(SpanStatusCode.ERROR);
    expect(hanger.status.message).toMatch(/timed out after 300 ms/);
    expect(hanger.attributes['error.type']).toBe('timeout');
    const nester = byHandler.get('nester')!;
    expect(nester.status.code).toBe(SpanStatusCode.UNSET);
    const inside = exporter.getFinishedSpans().find((s) => s.name === 'inside');
    expect(inside?.parentSpanContext?.spanId).toBe(nester.spanContext().spanId);

    // Heartbeats kept flowing meanwhile, and none of them was traced.
    const heartbeatTopic = h.heartbeatTopic;
    const sent = e!.engine.heartbeat.sent;
    await waitFor(() => e!.engine.heartbeat.sent > sent);
    expect(
      exporter.getFinishedSpans().filter((s) => String(s.name).includes(heartbeatTopic)),
    ).toEqual([]);
  });
});
