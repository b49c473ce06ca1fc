import type { TopicOffsets } from '../interfaces/kafka-port.interface.js';

/** topic → partition → offset of the last record handed to the handlers. */
export type DeliveredOffsets = ReadonlyMap<string, ReadonlyMap<number, string>>;

/** The offset after `offset`, as a decimal string. */
export function nextOffset(offset: string | undefined): string | undefined {
  return offset === undefined ? undefined : (BigInt(offset) + 1n).toString();
}

/**
 * Where a group claimed after a move (lock lost, foreign member) starts reading: right after the
 * last record delivered, or where the previous group started for partitions that delivered
 * nothing, so nothing published while the instance moved is skipped. Never past `latest`.
 */
export function resumeOffsets(
  latest: TopicOffsets,
  previousStart: TopicOffsets | undefined,
  delivered: DeliveredOffsets,
): TopicOffsets {
  if (!previousStart) return latest;
  const result: TopicOffsets = new Map();
  for (const [topic, partitions] of latest) {
    const merged = new Map(partitions);
    for (const [partition, high] of partitions) {
      const from =
        nextOffset(delivered.get(topic)?.get(partition)) ??
        previousStart.get(topic)?.get(partition);
      if (from !== undefined && BigInt(from) < BigInt(high)) {
        merged.set(partition, from);
      }
    }
    result.set(topic, merged);
  }
  return result;
}
