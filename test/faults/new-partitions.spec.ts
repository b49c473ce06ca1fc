// New partitions: partitions added to a broadcast topic while instances run (admin.createPartitions)
// are consumed by every instance, including what was written to them before the instances noticed
// them. consumer.metadataMaxAgeMs is short (2 s) so the change is seen in test time.
import type { Admin, Producer } from 'kafkajs';
import {
  connectedAdmin,
  connectedProducer,
  publishJson,
  recordReliability,
  faultEngines,
} from '../support/faults/faults.js';
import type { EngineHarness, TestEngine } from '../support/engine/engine.js';
import { kafkaBrokers, testPrefix, waitFor } from '../support/broker/kafka.js';
import { clientScoped, kafkaClients } from '../support/broker/kafka-clients.js';

const TOPIC = 'news';
const METADATA_MAX_AGE_MS = 2_000;
const brokers = kafkaBrokers();

describe.each(kafkaClients())('partitions added while running (%s client)', (client) => {
  let engines: EngineHarness | undefined;
  let admin: Admin | undefined;
  let producer: Producer | undefined;

  afterEach(async () => {
    await producer?.disconnect();
    await admin?.disconnect();
    await engines?.cleanup();
  });

  it('are read by every instance, from their first record', async () => {
    const prefix = testPrefix(clientScoped('faults-partitions', client));
    const fullTopic = prefix + TOPIC;
    engines = faultEngines(prefix, brokers, client);
    const instances: TestEngine[] = [];
    for (const [name, lock] of [
      ['a', 'postgres'],
      ['b', 'mariadb'],
      ['c', 'none'],
    ] as const) {
      instances.push(
        await engines.create({
          name,
          lock,
          topics: [TOPIC],
          options: {
            consumer: {
              sessionTimeoutMs: 6_000,
              heartbeatIntervalMs: 500,
              maxWaitTimeMs: 100,
              metadataMaxAgeMs: METADATA_MAX_AGE_MS,
            },
          },
        }),
      );
    }
    await Promise.all(instances.map((e) => engines!.startEngine(e)));
    admin = await connectedAdmin(brokers);
    expect((await admin.fetchTopicOffsets(fullTopic)).length).toBe(1);
    producer = await connectedProducer(brokers);
    await publishJson(producer, fullTopic, [{ p: 0, n: 'before' }], 0);
    await waitFor(() => instances.every((e) => e.payloads(TOPIC).length === 1), {
      timeoutMs: 20_000,
      message: 'first broadcast',
    });
    await producer.disconnect();

    const addedAt = Date.now();
    await admin.createPartitions({
      topicPartitions: [{ topic: fullTopic, count: 3 }],
    });
    await waitFor(
      async () => {
        const { topics } = await admin!.fetchTopicMetadata({
          topics: [fullTopic],
        });
        return (
          topics[0]!.partitions.length === 3 && topics[0]!.partitions.every((p) => p.leader >= 0)
        );
      },
      { timeoutMs: 20_000, message: 'new partitions have no leaders' },
    );
    // Written at once, before any instance can have noticed the new partitions.
    producer = await connectedProducer(brokers);
    const sent: unknown[] = [{ p: 0, n: 'before' }];
    for (const p of [1, 2]) {
      const payloads = [0, 1, 2].map((n) => ({ p, n }));
      await publishJson(producer, fullTopic, payloads, p);
      sent.push(...payloads);
    }
    const key = (x: unknown) => JSON.stringify(x);
    await waitFor(
      () =>
        instances.every((e) => sent.every((s) => e.payloads(TOPIC).some((q) => key(q) === key(s)))),
      {
        timeoutMs: 30_000,
        intervalMs: 50,
        message: `new partitions not consumed: ${instances.map((e) => `${e.name}=${key(e.payloads(TOPIC))}`).join(' ')}\n${engines.dumpLogs()}`,
      },
    );
    const seenMs = Date.now() - addedAt;

    // And what is written to them from now on.
    const later = [0, 1, 2].map((p) => ({ p, n: 'later' }));
    for (const l of later) await publishJson(producer, fullTopic, [l], l.p);
    sent.push(...later);
    await waitFor(() => instances.every((e) => e.payloads(TOPIC).length >= sent.length), {
      timeoutMs: 20_000,
      message: 'later broadcasts not consumed',
    });
    for (const e of instances) {
      expect([...e.payloads(TOPIC)].map(key).sort(), e.name).toEqual(sent.map(key).sort());
      const s = e.engine.reader.status();
      expect(s.state).toBe('ready');
    }

    recordReliability({
      scenario: clientScoped('new-partitions', client),
      instances: instances.length,
      crashes: 0,
      partitionsBefore: 1,
      partitionsAfter: 3,
      sent: sent.length,
      deliveriesExpected: sent.length * instances.length,
      received: instances.reduce((sum, e) => sum + e.payloads(TOPIC).length, 0),
      lost: 0,
      groupsBefore: instances.length,
      groupsAfter: instances.length,
      recoverMs: seenMs,
      metadataMaxAgeMs: METADATA_MAX_AGE_MS,
    });
  });
});
