import type { Admin, Kafka } from 'kafkajs';
import type { OperatorReadOptions } from '../../interfaces/broadcast-operator.interface.js';

/**
 * Reads one topic through a throwaway group `groupId` (never a pool group): start offsets come
 * from the admin (high watermarks, or by timestamp for `since`) and are sought explicitly, auto
 * commit is off, and the group is deleted when reading ends.
 */
export async function readTopic(
  kafka: Kafka,
  admin: Admin,
  groupId: string,
  topic: string,
  options: OperatorReadOptions,
): Promise<void> {
  const high = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, p.high]));
  const start = new Map(high);
  if (options.since !== undefined) {
    for (const p of await admin.fetchTopicOffsetsByTimestamp(topic, options.since)) {
      // -1: nothing at or after the timestamp; start at the end.
      if (BigInt(p.offset) >= 0n) start.set(p.partition, p.offset);
    }
  }
  const remaining = new Set(
    [...high].filter(([p, h]) => BigInt(start.get(p)!) < BigInt(h)).map(([p]) => p),
  );
  if (options.toEnd && remaining.size === 0) return;

  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 250, sessionTimeout: 10_000 });
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const onAbort = () => finish();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) finish();
  // The next offset to read per partition, sought again at every join: a seek issued before
  // the join completes can be lost to it, and kafkajs would then start at the latest offset.
  const next = new Map(start);
  let joined = false;
  let announced = false;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    for (const [partition, offset] of next) consumer.seek({ topic, partition, offset });
    joined = true;
  });
  // The first fetch after a join reads from the sought positions: reading is positioned.
  consumer.on(consumer.events.FETCH_START, () => {
    if (!joined || announced) return;
    announced = true;
    options.positioned?.();
  });
  try {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: false });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        next.set(partition, (BigInt(message.offset) + 1n).toString());
        options.onRecord({
          topic,
          partition,
          offset: message.offset,
          timestamp: Number(message.timestamp),
          key: message.key?.toString('utf8') ?? null,
          headers: Object.fromEntries(
            Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]),
          ),
          value: message.value?.toString('utf8') ?? null,
        });
        if (options.toEnd && BigInt(message.offset) + 1n >= BigInt(high.get(partition) ?? 0)) {
          remaining.delete(partition);
          if (remaining.size === 0) finish();
        }
      },
    });
    await finished;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    await consumer.disconnect().catch(() => undefined);
    await admin.deleteGroups([groupId]).catch(() => undefined);
  }
}
