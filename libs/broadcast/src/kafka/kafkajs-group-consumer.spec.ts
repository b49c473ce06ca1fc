// The kafkajs consumer adapter over a scripted kafkajs Consumer: a stop() during connect/run waits
// for it (kafkajs issue #1639: a disconnect then finds no runner, and the run joins afterwards), and
// the consumer runs without auto-commit. Proven on the real broker in test/seams-stop.spec.ts.
import type { Kafka } from 'kafkajs';
import { deferred } from '../shared/async.utils.js';
import { KafkajsGroupConsumer } from './kafkajs-group-consumer.js';

function scriptedConsumer() {
  const steps = { connect: deferred<void>(), run: deferred<void>() };
  const calls: string[] = [];
  const runOptions: Record<string, unknown>[] = [];
  const consumer = {
    events: { GROUP_JOIN: 'j', FETCH_START: 'fs', FETCH: 'f', CRASH: 'c' },
    on: () => undefined,
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
  const adapter = new KafkajsGroupConsumer(
    kafka,
    {
      groupId: 'g',
      topics: ['t'],
      fromBeginning: true,
      sink: () => undefined,
      listener: { joined: () => undefined, positioned: () => undefined, crashed: () => undefined },
    },
    {
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 500,
      maxWaitTimeMs: 100,
      metadataMaxAgeMs: 1_000,
    },
    { log: () => undefined, warn: () => undefined, error: () => undefined },
  );
  return { adapter, steps, calls, runOptions };
}

describe('KafkajsGroupConsumer', () => {
  it('a stop during connect waits for it, never runs, then disconnects', async () => {
    const { adapter, steps, calls } = scriptedConsumer();
    const starting = adapter.start();
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
});
