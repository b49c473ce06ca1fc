import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type { KafkaAdminPort } from '../../interfaces/kafka-port.interface.js';
import type { ReadPositions } from './read-positions.js';

export interface OutOfRangeDeps {
  admin: KafkaAdminPort;
  positions: ReadPositions;
  logger: BroadcastLogger;
}

/**
 * Where a partition continues after the broker answered its fetch with OFFSET_OUT_OF_RANGE. A
 * Kafka client's own recovery (the reset policy) would start over from the earliest or latest
 * offset, and kafkajs commits that choice: a bulk replay of the partition, or a silent skip.
 * Instead the engine judges its own position P against the log as it is now:
 *
 * - P below the log start (retention or deleted records passed it during an outage or a slow
 *   handler): continue at the log start; the records in between are gone, logged and counted.
 * - P above the high watermark (the log was truncated: an unclean leader election): continue at
 *   the first record stamped at or after the last one handed over from this partition, within
 *   the log (the new leader's records after the cut are new to us; a few may come again), or at
 *   the high watermark when that is unknown; logged and counted.
 * - P within the log (the range moved back already, or a stale replica answered): continue at P.
 *
 * The chosen offset becomes the engine's position, so a rejoin continues there too.
 */
export async function resumeOutOfRange(
  { admin, positions, logger }: OutOfRangeDeps,
  topic: string,
  partition: number,
): Promise<string> {
  const position = BigInt(positions.positionOf(topic, partition));
  const bounds = (await admin.offsetBounds(topic)).get(partition);
  if (!bounds) throw new Error(`no offsets for ${topic}[${partition}]`);
  const low = BigInt(bounds.low);
  const high = BigInt(bounds.high);
  const fields = {
    topic,
    partition,
    offset: position.toString(),
    low: bounds.low,
    high: bounds.high,
  };
  if (position < low) {
    const lost = low - position;
    logger.warn(
      `Broadcast records ${topic}[${partition}]@${position}..${low - 1n} were removed from the log before they were read (${lost} records); continuing at ${low}`,
      { ...fields, reason: 'position below the log start', lost: Number(lost) },
    );
    positions.jump(topic, partition, bounds.low);
    return bounds.low;
  }
  if (position > high) {
    const resume = await afterLastSeen(admin, positions, topic, partition, low, high);
    logger.warn(
      `The log of ${topic}[${partition}] ends at ${high}, before the position ${position} (truncated); continuing at ${resume}`,
      { ...fields, reason: 'position above the high watermark', resume: resume.toString() },
    );
    positions.jump(topic, partition, resume.toString());
    return resume.toString();
  }
  logger.warn(
    `The broker reported ${topic}[${partition}]@${position} out of range, but the log holds ${low}..${high}; continuing at ${position}`,
    { ...fields, reason: 'position reported out of range' },
  );
  return position.toString();
}

/**
 * After a truncation: the first offset stamped at or after the last record handed over from the
 * partition, clamped to the log; the high watermark when no timestamp is known.
 */
async function afterLastSeen(
  admin: KafkaAdminPort,
  positions: ReadPositions,
  topic: string,
  partition: number,
  low: bigint,
  high: bigint,
): Promise<bigint> {
  const timestamp = positions.lastTimestamp(topic, partition);
  if (timestamp === undefined) return high;
  const found = (await admin.offsetsForTimestamp(topic, Number(timestamp))).get(partition);
  if (found === undefined) return high;
  const offset = BigInt(found);
  return offset < low ? low : offset > high ? high : offset;
}
