// Read positions belong to the engine (ReadPositions), never to broker-committed offsets: the
// consumer commits nothing (so a seek never becomes a network commit that can fail and be lost),
// and every assigned partition is sought at every assignment. A partition created after the
// start snapshot is read from its beginning, also when the instance moves to another group.
import { LockInspector, useEngineHarness } from '../support/engine/engine.js';
import { waitFor } from '../support/broker/kafka.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';

const TOPIC = 'seams.positions';

describe.each(kafkaClients())('%s client', (client) => {
  describe('engine-owned read positions', () => {
    it('commits nothing to the broker: the group has no committed offset after reading', async () => {
      const h = useEngineHarness('positions-commits', undefined, client);
      const e = await h.start({ lock: 'postgres', topics: [TOPIC] });
      await e.engine.publisher.publish(TOPIC, { n: 1 });
      await e.engine.publisher.publish(TOPIC, { n: 2 });
      await waitFor(() => e.payloads(TOPIC).length === 2, { message: 'not received' });
      const admin = await h.admin();
      const groupId = e.status().groupId!;
      const offsets = await admin.fetchOffsets({ groupId, topics: [h.topic(TOPIC)] });
      expect(offsets.flatMap((t) => t.partitions.map((p) => p.offset))).toEqual(['-1']);
    });

    it('reads a partition created after the start snapshot from its beginning, across a move to another group', async () => {
      const h = useEngineHarness('positions-new-partition', undefined, client);
      const e = await h.start({
        lock: 'postgres',
        topics: [TOPIC],
        // The consumer must not notice the new partition before it moves.
        options: {
          consumer: { sessionTimeoutMs: 6_000, maxWaitTimeMs: 100, metadataMaxAgeMs: 600_000 },
        },
        name: 'mover',
      });
      const admin = await h.admin();
      await admin.createPartitions({ topicPartitions: [{ topic: h.topic(TOPIC), count: 2 }] });
      await waitFor(async () => (await admin.fetchTopicOffsets(h.topic(TOPIC))).length === 2, {
        message: 'partition 1 not visible',
      });
      const producer = await h.producer();
      const values = [1, 2, 3, 4, 5].map((n) => ({
        value: JSON.stringify({ p1: n }),
        partition: 1,
      }));
      await producer.send({ topic: h.topic(TOPIC), acks: -1, messages: values });
      const moved = e.status().groupId;
      const inspector = await LockInspector.open('postgres', h.lockNamespace);
      h.onCleanup(() => inspector.close());
      // Another instance took the id over: the engine must move to another group.
      const takeover = await inspector.killHolderAndTakeOver(e.status().lockId!);
      h.onCleanup(() => takeover.release());
      await waitFor(() => e.status().state === 'ready' && e.status().groupId !== moved, {
        message: `did not move: ${JSON.stringify(e.status())}`,
      });
      await waitFor(() => e.payloads(TOPIC).length === 5, {
        message: `records of the new partition: ${JSON.stringify(e.payloads(TOPIC))}`,
      });
      expect(e.payloads(TOPIC)).toEqual([1, 2, 3, 4, 5].map((n) => ({ p1: n })));
    });
  });
});
