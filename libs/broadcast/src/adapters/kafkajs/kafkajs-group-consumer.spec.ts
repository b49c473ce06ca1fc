// The kafkajs consumer adapter over a scripted kafkajs Consumer: a stop() during connect/run waits
// for it (kafkajs issue #1639: a disconnect then finds no runner, and the run joins afterwards), the
// consumer runs without auto-commit, and it reports how far it read, filtered records included.
// Proven on the real broker in test/faults/stop-during-startup.spec.ts and test/features/replay-control-records.spec.ts.
import type { EachBatchPayload, Kafka } from 'kafkajs';
import type { GroupConsumerSpec } from '../../interfaces/kafka-port.interface.js';
import { deferred } from '../../shared/async.utils.js';
import { DeferredGroupConsumer } from '../shared/deferred-group-consumer.js';
import { KafkajsErrors } from './kafkajs-errors.js';
import { KafkajsGroupConsumer } from './kafkajs-group-consumer.js';

function scriptedConsumer() {
  const steps = { connect: deferred<void>(), run: deferred<void>() };
  const calls: string[] = [];
  const runOptions: Record<string, unknown>[] = [];
  const listeners = new Map<string, (event: { payload: Record<string, unknown> }) => void>();
  const progress: unknown[][] = [];
  const consumer = {
    events: { GROUP_JOIN: 'j', FETCH_START: 'fs', FETCH: 'f', CRASH: 'c', END_BATCH_PROCESS: 'e' },
    on: (event: string, listener: (event: { payload: Record<string, unknown> }) => void) =>
      void listeners.set(event, listener),
    connect: () => (calls.push('connect'), steps.connect.promise),
    subscribe: async () => void calls.push('subscribe'),
    run: (options: Record<string, unknown>) => {
      calls.push('run');
      runOptions.push(options);
      return steps.run.promise;
    },
    disconnect: async () => void calls.push('disconnect'),
    seek: () => undefined,
  };
  const kafka = { consumer: () => consumer } as unknown as Kafka;
  const logger = { log: () => undefined, warn: () => undefined, error: () => undefined };
  const spec: GroupConsumerSpec = {
    groupId: 'g',
    topics: ['t'],
    fromBeginning: true,
    sink: () => undefined,
    listener: { joined: () => undefined, positioned: () => undefined, crashed: () => undefined },
    progress: (...args) => void progress.push(args),
  };
  // The adapter's group consumer: the kafkajs steps under the shared lifecycle.
  const adapter = new DeferredGroupConsumer(
    spec,
    (s, owner) =>
      new KafkajsGroupConsumer(s, {
        kafka,
        timings: {
          sessionTimeoutMs: 6_000,
          heartbeatIntervalMs: 500,
          maxWaitTimeMs: 100,
          metadataMaxAgeMs: 1_000,
        },
        logger,
        errors: new KafkajsErrors({ brokers: ['b:9092'] }),
        owner,
      }),
    { logger },
  );
  return { adapter, steps, calls, runOptions, listeners, progress };
}

/** A batch of records at `offsets` whose last offset (a filtered marker, say) is `lastOffset`. */
function batchPayload(offsets: number[], lastOffset: number, stale = () => false) {
  const messages = offsets.map((o) => ({ offset: String(o), timestamp: String(1000 + o) }));
  return {
    batch: { topic: 't', partition: 0, messages, lastOffset: () => String(lastOffset) },
    resolveOffset: () => undefined,
    heartbeat: async () => undefined,
    isRunning: () => true,
    isStale: stale,
  } as unknown as EachBatchPayload;
}

describe('KafkajsGroupConsumer', () => {
  it('a stop during connect waits for it, never runs, then disconnects', async () => {
    const { adapter, steps, calls } = scriptedConsumer();
    const starting = adapter.start();
    await vi.waitFor(() => expect(calls).toEqual(['connect']));
    const stopping = adapter.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(['connect']);
    steps.connect.resolve();
    await Promise.all([starting, stopping]);
    expect(calls).toEqual(['connect', 'disconnect']);
  });

  it('a stop during run disconnects only once run has resolved (so the runner exists)', async () => {
    const { adapter, steps, calls, runOptions } = scriptedConsumer();
    steps.connect.resolve();
    const starting = adapter.start();
    await vi.waitFor(() => expect(calls).toContain('run'));
    const stopping = adapter.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).not.toContain('disconnect');
    steps.run.resolve();
    await Promise.all([starting, stopping]);
    expect(calls.at(-1)).toBe('disconnect');
    expect(runOptions[0]).toMatchObject({ autoCommit: false });
  });

  it('reports how far it read once done with a batch, up to a marker after the last record', async () => {
    const { adapter, steps, runOptions, progress } = scriptedConsumer();
    steps.connect.resolve();
    steps.run.resolve();
    await adapter.start();
    const eachBatch = runOptions[0]!.eachBatch as (p: EachBatchPayload) => Promise<void>;
    await eachBatch(batchPayload([4, 5], 6));
    expect(progress).toEqual([['t', 0, '7', '1005']]);
    // A batch left early (a seek made it stale) reports nothing.
    let handed = 0;
    await eachBatch(batchPayload([7, 8], 8, () => handed++ > 0));
    expect(progress).toHaveLength(1);
  });

  it('reports a batch kafkajs emptied by filtering (it never reaches eachBatch)', async () => {
    const { adapter, listeners, progress } = scriptedConsumer();
    void adapter.start();
    const batchEnd = await vi.waitFor(() => {
      const listener = listeners.get('e');
      if (!listener) throw new Error('the consumer is not made yet');
      return listener;
    });
    batchEnd({ payload: { topic: 't', partition: 1, batchSize: 0, lastOffset: '9' } });
    batchEnd({ payload: { topic: 't', partition: 1, batchSize: 3, lastOffset: '20' } });
    expect(progress).toEqual([['t', 1, '10']]);
  });
});
