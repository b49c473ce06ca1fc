/**
 * A position the log no longer holds, on the real broker. kafkajs's own recovery from
 * OFFSET_OUT_OF_RANGE commits the reset offset (earliest, since the group runs with
 * fromBeginning) and reads the whole retained partition again. The engine decides instead:
 * nothing is committed, a position inside the log continues where it was, and one below the log
 * start continues at the log start with the records in between logged and counted as a gap.
 *
 * - The broker answering a fetch with OFFSET_OUT_OF_RANGE (as after an unclean leader election)
 *   is played by the fault proxy, rewriting one Fetch response's partition error code.
 * - Retention passing the position: deleteTopicRecords moves the log start past it while a
 *   handler holds the batch before it.
 */
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, onTestFailed, onTestFinished } from 'vitest';
import { EngineHarness, useEngineHarness } from '../support/engine/engine.js';
import { waitFor } from '../support/broker/kafka.js';
import { kafkaClients, type BroadcastKafkaClient } from '../support/broker/kafka-clients.js';
import { startProxiedBroker, type ProxiedBroker } from '../support/broker/proxied-broker.mjs';
import {
  ApiKey,
  ErrorCode,
  fetchResponsePartitions,
  withFetchPartitionError,
} from '../support/broker/tcp-proxy.js';

const TOPIC = 'seq';
const OLD_RECORDS = 20;

/** The offsets the group has committed for `topic`, by partition ('-1': none). */
async function committed(admin: Admin, groupId: string, topic: string): Promise<string[]> {
  const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
  return (offsets?.partitions ?? []).map((p) => p.offset);
}

/** A harness whose own clients use `brokers` (the engines choose theirs), cleaned up like useEngineHarness's. */
function harnessOn(name: string, brokers: string[], client: BroadcastKafkaClient): EngineHarness {
  const harness = new EngineHarness(name, {}, { brokers, client });
  onTestFailed(() =>
    console.log(`---- engine logs of ${harness.prefix} ----\n${harness.dumpLogs()}`),
  );
  onTestFinished(() => harness.cleanup());
  return harness;
}

describe('a fetch answered with OFFSET_OUT_OF_RANGE', () => {
  // One private broker for both clients: starting one takes seconds.
  let broker: ProxiedBroker;

  beforeAll(async () => {
    broker = await startProxiedBroker({ dirPrefix: 'oor-kafka-' });
  });

  afterAll(async () => {
    await broker?.stop();
  });

  describe.each(kafkaClients())('%s client', (client) => {
    it('replays nothing and commits nothing: the position is inside the log, reading goes on there', async () => {
      const h = harnessOn('oor-proxied', broker.direct, client);
      await h.createTopics([{ topic: TOPIC }]);
      const topic = h.topic(TOPIC);
      // Fetch names the topic by its id from v13 (@platformatic/kafka's v17), by name before (v11).
      const topicId = await broker.topicId(topic);
      await h.sendJson(
        TOPIC,
        Array.from({ length: OLD_RECORDS }, (_, i) => ({ n: `old-${i}` })),
      );
      const e = await h.start({
        lock: 'none',
        topics: [TOPIC],
        kafka: { brokers: broker.proxied, requestTimeoutMs: 5_000 },
      });

      // The first Fetch response that carries records of the topic is answered out of range.
      let rewritten = false;
      broker.proxy.onFrame = (frame) => {
        if (rewritten || frame.direction !== 'response' || frame.apiKey !== ApiKey.Fetch)
          return undefined;
        return {
          kind: 'rewrite',
          rewrite: (bytes, { apiVersion }) => {
            const named = apiVersion >= 13 ? topicId : topic;
            const carries = fetchResponsePartitions(bytes, apiVersion).some(
              (p) => (p.topic ?? p.topicId) === named && p.partition === 0 && p.recordBytes > 0,
            );
            if (rewritten || !carries) return bytes;
            rewritten = true;
            return withFetchPartitionError(
              bytes,
              named,
              0,
              ErrorCode.OFFSET_OUT_OF_RANGE,
              apiVersion,
            );
          },
        };
      };
      await h.sendJson(
        TOPIC,
        [1, 2, 3, 4, 5].map((i) => ({ n: `live-${i}` })),
      );
      await waitFor(() => rewritten, { message: 'no Fetch response with records was rewritten' });
      await h.sendJson(
        TOPIC,
        [6, 7, 8, 9, 10].map((i) => ({ n: `live-${i}` })),
      );
      const names = () => e.payloads(TOPIC).map((p) => (p as { n: string }).n);
      await waitFor(() => names().includes('live-10'), {
        timeoutMs: 30_000,
        message: 'live-10 never arrived',
      });
      broker.proxy.onFrame = undefined;

      expect({
        received: names(),
        committed: await committed(await h.admin(), e.engine.reader.groupId!, topic),
      }).toEqual({
        received: Array.from({ length: 10 }, (_, i) => `live-${i + 1}`),
        committed: ['-1'],
      });
      expect(
        e.logger.matching(/out of range, but the log holds 0\.\.\d+; continuing at 20/, 'warn'),
      ).toHaveLength(1);
      expect(e.status()).toMatchObject({ state: 'ready', received: 10 });
    });
  });
});

describe.each(kafkaClients())('retention passing the position (%s client)', (client) => {
  it('continues at the log start, counts and logs the records it lost, and commits nothing', async () => {
    const h = useEngineHarness('oor-retention', undefined, client);
    await h.createTopics([{ topic: TOPIC }]);
    const topic = h.topic(TOPIC);
    await h.sendJson(
      TOPIC,
      Array.from({ length: 5 }, (_, i) => ({ n: `old-${i}` })),
    );
    let entered = false;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const e = await h.start({
      lock: 'none',
      topics: [TOPIC],
      // Holds the batch of 'hold' (offset 5): the consumer fetches nothing more meanwhile.
      register: (engine) =>
        engine.on(TOPIC, (payload) => {
          if ((payload as { n: string }).n !== 'hold') return;
          entered = true;
          return held;
        }),
    });
    await h.sendJson(TOPIC, [{ n: 'hold' }]);
    await waitFor(() => entered, { message: 'the holding handler was never called' });
    await h.sendJson(
      TOPIC,
      [1, 2, 3, 4].map((i) => ({ n: `gone-${i}` })),
    ); // offsets 6..9
    await h.sendJson(
      TOPIC,
      [1, 2, 3].map((i) => ({ n: `kept-${i}` })),
    ); // offsets 10..12
    const admin = await h.admin();
    // kafkajs finds the partition's leader in metadata it already holds: read the topic's first.
    await admin.fetchTopicOffsets(topic);
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '10' }] });
    release();

    const names = () => e.payloads(TOPIC).map((p) => (p as { n: string }).n);
    await waitFor(() => names().includes('kept-3'), {
      timeoutMs: 30_000,
      message: 'kept-3 never arrived',
    });
    expect({
      received: names(),
      committed: await committed(admin, e.engine.reader.groupId!, topic),
      passedOver: e.status().passedOver,
    }).toEqual({
      received: ['hold', 'kept-1', 'kept-2', 'kept-3'],
      committed: ['-1'],
      passedOver: 4,
    });
    expect(
      e.logger.matching(
        /@6\.\.9 were removed from the log .*\(4 records\); continuing at 10/,
        'warn',
      ),
    ).toHaveLength(1);
    expect(e.status()).toMatchObject({ state: 'ready', received: 4 });
  });
});
