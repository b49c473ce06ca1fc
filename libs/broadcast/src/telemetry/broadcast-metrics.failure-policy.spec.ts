// The failure policy's counters reach the metrics: read from the status at collection time.
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { BroadcastStatus } from '../interfaces/broadcast-status.interface.js';
import { BroadcastMetrics } from './broadcast-metrics.js';

class CollectingReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const STATUS = {
  state: 'ready',
  received: 5,
  retries: 4,
  exhausted: 3,
  retriesShed: 2,
  deadLettered: 6,
  deadLetterFailures: 1,
  hookFailures: 7,
} as Partial<BroadcastStatus> as BroadcastStatus;

describe('BroadcastMetrics: failure policy counters', () => {
  it('observes retries, final failures, shed retries, dead letters and hook failures per instance', async () => {
    const reader = new CollectingReader();
    const provider = new MeterProvider({ readers: [reader] });
    const metrics = new BroadcastMetrics(provider.getMeter('test'), {
      instanceId: 'me',
      topicPrefix: 'p.',
      groupId: () => undefined,
      status: () => STATUS,
      heartbeats: () => ({ sent: 0, received: 0 }),
    });
    const { resourceMetrics } = await reader.collect();
    const values = new Map(
      resourceMetrics.scopeMetrics
        .flatMap((s) => s.metrics)
        .map((m) => [m.descriptor.name, m.dataPoints.map((p) => [p.attributes, p.value])]),
    );
    const instance = { 'broadcast.instance': 'me' };
    expect(values.get('broadcast.handler.retries')).toEqual([[instance, 4]]);
    expect(values.get('broadcast.handler.exhausted')).toEqual([[instance, 3]]);
    expect(values.get('broadcast.handler.retries_shed')).toEqual([[instance, 2]]);
    expect(values.get('broadcast.dead_letter.published')).toEqual([[instance, 6]]);
    expect(values.get('broadcast.dead_letter.failed')).toEqual([[instance, 1]]);
    expect(values.get('broadcast.hook.failed')).toEqual([[instance, 7]]);
    metrics.close();
    await provider.shutdown();
  });
});
