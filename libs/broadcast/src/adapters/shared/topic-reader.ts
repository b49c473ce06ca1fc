import type { OperatorReadOptions } from '../../interfaces/broadcast-operator.interface.js';
import type {
  GroupConsumerPort,
  IncomingRecord,
  KafkaPort,
} from '../../interfaces/kafka-port.interface.js';

/** How long the throwaway group's deletion is retried after reading ends. */
const DELETE_GROUP_MS = 10_000;

/**
 * Reads one topic through a throwaway group `groupId` (never a pool group), with the adapter's
 * own group consumer: start offsets come from the admin (high watermarks, or by timestamp for
 * `since`) and are sought at every join, nothing is committed, and the group is deleted when
 * reading ends. The same steps as adapters/kafkajs/kafkajs-topic-reader.ts, over the port (the
 * @platformatic/kafka and @confluentinc/kafka-javascript operators read through it).
 */
export async function readTopic(
  kafka: KafkaPort,
  groupId: string,
  topic: string,
  options: OperatorReadOptions,
): Promise<void> {
  const high = (await kafka.admin.latestOffsets([topic])).get(topic) ?? new Map<number, string>();
  const start = new Map(high);
  if (options.since !== undefined) {
    // Per partition the first offset at or after `since`, or the high watermark when none is.
    for (const [partition, offset] of await kafka.admin.offsetsForTimestamp(topic, options.since))
      start.set(partition, offset);
  }
  const remaining = new Set(
    [...high].filter(([p, h]) => BigInt(start.get(p)!) < BigInt(h)).map(([p]) => p),
  );
  if (options.toEnd && remaining.size === 0) return;

  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let failure: Error | undefined;
  const onAbort = () => finish();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) finish();
  // The next offset to read per partition, sought again at every join.
  const next = new Map(start);
  let announced = false;
  const consumer: GroupConsumerPort = kafka.createGroupConsumer({
    groupId,
    topics: [topic],
    fromBeginning: false,
    listener: {
      joined: (_memberId, assignment) => {
        for (const partition of assignment.get(topic) ?? []) {
          const offset = next.get(partition);
          if (offset !== undefined) consumer.seek(topic, partition, offset);
        }
      },
      // The first fetch after a join read from the sought positions: reading is positioned.
      positioned: () => {
        if (announced) return;
        announced = true;
        options.positioned?.();
      },
      crashed: (error) => {
        failure = error;
        finish();
      },
    },
    sink: (_topic, partition, record) => {
      next.set(partition, (BigInt(record.offset) + 1n).toString());
      options.onRecord(toOperatorRecord(topic, partition, record));
      if (options.toEnd && BigInt(record.offset) + 1n >= BigInt(high.get(partition) ?? 0)) {
        remaining.delete(partition);
        if (remaining.size === 0) finish();
      }
    },
    // Records deleted under a tail (retention): it goes on from the log start, as a new reader would.
    outOfRange: async (t, partition) => (await kafka.admin.offsetBounds(t)).get(partition)!.low,
  });
  try {
    await consumer.start();
    await finished;
    if (failure) throw failure;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    await consumer.stop();
    await kafka.admin.deleteGroup(groupId, Date.now() + DELETE_GROUP_MS).catch(() => undefined);
  }
}

function toOperatorRecord(topic: string, partition: number, record: IncomingRecord) {
  return {
    topic,
    partition,
    offset: record.offset,
    timestamp: Number(record.timestamp),
    key: record.key?.toString('utf8') ?? null,
    headers: Object.fromEntries(
      Object.entries(record.headers ?? {}).map(([k, v]) => [k, String(v)]),
    ),
    value: record.value?.toString('utf8') ?? null,
  };
}
