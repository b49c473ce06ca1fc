// The gauges the shipped alert rules compare against: pool size and exhaustion, the staleness
// bound, the reader's problem and what it waits for, read from the source at collection time.
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { BroadcastTelemetrySource } from '../interfaces/broadcast-instrumentation.interface.js';
import type { BroadcastStatus } from '../interfaces/broadcast-status.interface.js';
import { FleetMetrics } from './fleet-metrics.js';

class CollectingReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

async function collect(source: BroadcastTelemetrySource) {
  const reader = new CollectingReader();
  const provider = new MeterProvider({ readers: [reader] });
  const metrics = new FleetMetrics(provider.getMeter('test'), source);
  const read = async () => {
    const { resourceMetrics } = await reader.collect();
    return new Map(
      resourceMetrics.scopeMetrics
        .flatMap((s) => s.metrics)
        .map((m) => [m.descriptor.name, m.dataPoints.map((p) => [p.attributes, p.value])]),
    );
  };
  return {
    read,
    close: async () => {
      metrics.close();
      await provider.shutdown();
    },
  };
}

function source(status: Partial<BroadcastStatus>, extra: Partial<BroadcastTelemetrySource>) {
  return {
    instanceId: 'me',
    topicPrefix: 'p.',
    groupId: () => undefined,
    status: () => status as BroadcastStatus,
    heartbeats: () => ({ sent: 0, received: 0 }),
    ...extra,
  } satisfies BroadcastTelemetrySource;
}

/** Spins on the clock: the gauge measures wall time, so time must pass (no timer to wait on). */
async function waitUntil(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}

const instance = { 'broadcast.instance': 'me' };

describe('FleetMetrics', () => {
  it('observes the pool size and exhaustion per pool, the staleness bound and a problem', async () => {
    const status: Partial<BroadcastStatus> = {
      state: 'starting',
      poolExhausted: true,
      poolExhaustions: 3,
      problem: 'TOPIC_AUTHORIZATION_FAILED',
    };
    const m = await collect(
      source(status, {
        pool: () => ({ name: 'p.broadcast', maxGroups: 7 }),
        maxStalenessMs: 4_000,
      }),
    );
    const pooled = { ...instance, 'broadcast.pool': 'p.broadcast' };
    let values = await m.read();
    expect(values.get('broadcast.pool.size')).toEqual([[pooled, 7]]);
    expect(values.get('broadcast.pool.exhausted')).toEqual([[pooled, 1]]);
    expect(values.get('broadcast.pool.exhaustions')).toEqual([[pooled, 3]]);
    expect(values.get('broadcast.staleness.limit')).toEqual([[instance, 4_000]]);
    expect(values.get('broadcast.problem')).toEqual([[instance, 1]]);
    const [[, unready]] = values.get('broadcast.unready.duration') as [unknown, number][];
    expect(unready).toBeGreaterThanOrEqual(0);

    // Cleared: the same series go back to 0 (no series of its own stays at 1).
    status.poolExhausted = false;
    delete status.problem;
    status.state = 'ready';
    values = await m.read();
    expect(values.get('broadcast.unready.duration')).toEqual([[instance, 0]]);
    expect(values.get('broadcast.pool.exhausted')).toEqual([[pooled, 0]]);
    expect(values.get('broadcast.problem')).toEqual([[instance, 0]]);
    await m.close();
  });

  it('observes what the reader waits for as 1, every other wait as 0, and all 0 once ready', async () => {
    const status: Partial<BroadcastStatus> = { state: 'starting', waitingFor: 'kafka' };
    const m = await collect(source(status, {}));
    const waits = async () =>
      Object.fromEntries(
        ((await m.read()).get('broadcast.waiting') as [Record<string, string>, number][]).map(
          ([attributes, value]) => {
            expect(attributes['broadcast.instance']).toBe('me');
            return [attributes['broadcast.waiting_for'], value];
          },
        ),
      );
    expect(await waits()).toEqual({ kafka: 1, pool: 0, group: 0 });
    status.waitingFor = 'group';
    expect(await waits()).toEqual({ kafka: 0, pool: 0, group: 1 });
    // A reader that does not name its wait: an exhausted pool is one.
    delete status.waitingFor;
    status.poolExhausted = true;
    expect(await waits()).toEqual({ kafka: 0, pool: 1, group: 0 });
    status.poolExhausted = false;
    status.state = 'ready';
    expect(await waits()).toEqual({ kafka: 0, pool: 0, group: 0 });
    await m.close();
  });

  it('counts the time not ready from the last collection that saw the reader ready', async () => {
    const status: Partial<BroadcastStatus> = { state: 'ready' };
    const m = await collect(source(status, {}));
    await m.read();
    const readyUntil = Date.now();
    status.state = 'recovering';
    await waitUntil(() => Date.now() >= readyUntil + 20);
    const [[, unready]] = (await m.read()).get('broadcast.unready.duration') as [unknown, number][];
    expect(unready).toBeGreaterThanOrEqual(20);
    await m.close();
  });

  it('leaves out the pool and the bound a source does not give (heartbeat: false)', async () => {
    const m = await collect(source({ poolExhausted: false, poolExhaustions: 0 }, {}));
    const values = await m.read();
    expect(values.get('broadcast.pool.size') ?? []).toEqual([]);
    expect(values.get('broadcast.staleness.limit') ?? []).toEqual([]);
    expect(values.get('broadcast.problem')).toEqual([[instance, 0]]);
    await m.close();
  });
});
