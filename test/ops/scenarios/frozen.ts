// f1 frozen (BroadcastInstanceDown); meanwhile retention passes its position and its topic is
// created again (BroadcastRecordsPassedOver, BroadcastRewound once it reads again).
import { waitFor } from '../../support/broker/kafka.js';
import { event, type OpsEnv } from './shared.js';

export async function frozenScenario(env: OpsEnv): Promise<void> {
  const { checks, producer, admin, live, PREFIX, TOPIC } = env;
  const f1 = live.f1!;
  const topic = PREFIX.frozen + TOPIC;
  const heartbeats = `${PREFIX.frozen}broadcast.heartbeat.v1`;
  // Far enough into product.changed that the topic created again stays short of f1's position.
  await producer.send({ topic, messages: Array.from({ length: 30 }, (_, n) => event(n)) });
  await waitFor(async () => (await f1.status()).received >= 30, { message: 'f1 reads' });
  const [{ partitions }] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;

  const frozenAt = Date.now();
  f1.freeze();
  let resumedAt = 0;
  try {
    await Promise.all([
      checks.fired(
        'BroadcastInstanceDown',
        { instance: f1.target },
        frozenAt,
        'f1 frozen (SIGSTOP)',
      ),
      (async () => {
        // The fetch f1 left pending is answered with one heartbeat-topic record (it waits in
        // f1's socket); retention then removes the five after it before f1 reads them.
        await producer.send({ topic: heartbeats, messages: [{ value: 'x' }] });
        await producer.send({
          topic: heartbeats,
          messages: [1, 2, 3, 4, 5].map(() => ({ value: 'x' })),
        });
        const [end] = await admin.fetchTopicOffsets(heartbeats);
        await admin.deleteTopicRecords({
          topic: heartbeats,
          partitions: [{ partition: 0, offset: end!.high }],
        });
        // product.changed deleted and created again: its log ends before f1's position.
        await admin.deleteTopics({ topics: [topic] });
        await waitFor(
          async () => {
            const created = await admin.createTopics({
              topics: [{ topic, numPartitions: partitions!.length }],
              waitForLeaders: true,
            });
            if (created) return true;
            // false means the topic exists: a try whose wait for leaders timed out on a loaded
            // box created it (CI: 30 s of false). The new log is empty in every partition.
            const offsets = await admin.fetchTopicOffsets(topic);
            return offsets.length === partitions!.length && offsets.every((o) => o.high === '0');
          },
          { timeoutMs: 30_000, intervalMs: 250, message: `${topic} created again` },
        );
      })(),
    ]);
  } finally {
    resumedAt = Date.now();
    f1.resume();
  }
  const f = { broadcast_instance: 'f1' };
  await Promise.all([
    checks.resolved(
      'BroadcastInstanceDown',
      { instance: f1.target },
      resumedAt,
      'f1 resumed (SIGCONT)',
    ),
    checks.fired(
      'BroadcastRecordsPassedOver',
      f,
      resumedAt,
      'f1 resumed after retention passed it',
    ),
    checks.fired('BroadcastRewound', f, resumedAt, 'f1 resumed: product.changed ends before it'),
  ]);
  await Promise.all([
    checks.resolved('BroadcastRecordsPassedOver', f, resumedAt, 'nothing passed over since'),
    checks.resolved('BroadcastRewound', f, resumedAt, 'no rewind since'),
  ]);
}
