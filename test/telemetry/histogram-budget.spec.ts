/**
 * Metrics under a burst, against the real broker: a backlog of 10,000 broadcasts is drained at
 * full speed. The outcome counters count every handler call; the latency histograms record at
 * most HISTOGRAM_VALUES_PER_SECOND values per topic and second (after a one-second burst), so
 * their cost stays bounded while a backlog drains.
 */
import { metrics } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { FAST_CONSUMER, useEngineHarness } from '../support/engine/engine.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { OnDemandReader } from '../support/telemetry/on-demand-reader.js';
import { newKafka, waitFor } from '../support/broker/kafka.js';

const reader = new OnDemandReader();
const provider = new MeterProvider({ readers: [reader] });

beforeAll(() => metrics.setGlobalMeterProvider(provider));
afterAll(async () => {
  await provider.shutdown();
  metrics.disable();
});

/** The value of a counter's or the count of a histogram's data point for `topic`. */
async function point(name: string, topic: string): Promise<number | undefined> {
  const { resourceMetrics } = await reader.collect();
  for (const scope of resourceMetrics.scopeMetrics)
    for (const metric of scope.metrics) {
      if (metric.descriptor.name !== name) continue;
      for (const p of metric.dataPoints) {
        if (p.attributes['messaging.destination.name'] !== topic) continue;
        return typeof p.value === 'number' ? p.value : (p.value as { count: number }).count;
      }
    }
  return undefined;
}

describe.each(kafkaClients())('Metrics while a backlog drains, %s client', (client) => {
  it('counts all 10,000 handler calls exactly and records a bounded spread of latencies', async () => {
    const h = useEngineHarness('otel-budget', {}, client);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const [e] = await h.startMany(1, {
      lock: 'none',
      register: (engine) =>
        // The first call is held until the whole backlog is on the broker, so the rest drains
        // as fast as the engine reads.
        engine.on('burst', () => (calls++ === 0 ? held : undefined), 'burst'),
      // Room to hold the first call while the backlog is produced.
      options: {
        handlerTimeoutMs: 25_000,
        consumer: { ...FAST_CONSUMER, sessionTimeoutMs: 30_000 },
      },
    });
    await h.allReady([e!]);
    const topic = h.topic('burst');
    const producer = newKafka('otel-budget-producer').producer();
    await producer.connect();
    try {
      for (let batch = 0; batch < 10; batch++)
        await producer.send({
          topic,
          messages: Array.from({ length: 1_000 }, (_, i) => ({
            value: `{"i":${batch * 1_000 + i}}`,
          })),
        });
    } finally {
      await producer.disconnect();
    }
    await waitFor(() => calls >= 1);
    const releasedAt = Date.now();
    release();
    await waitFor(() => calls >= 10_000, { timeoutMs: 60_000, message: `${calls} calls` });
    const drainMs = Date.now() - releasedAt;

    expect(await point('broadcast.messages.handled', topic)).toBe(10_000);
    const recorded = await point('broadcast.handler.duration', topic);
    const latencies = await point('broadcast.fanout.latency', topic);
    expect(latencies).toBe(recorded);
    // The first second's 1,000 at least; then 1,000 a second while the rest drained.
    expect(recorded).toBeGreaterThanOrEqual(1_000);
    expect(recorded).toBeLessThanOrEqual(1_000 + Math.ceil(drainMs) + 1);
    console.log(`drained 10,000 in ${drainMs} ms; ${recorded} latencies recorded`);
  });
});
