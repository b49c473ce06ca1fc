import type { KafkaRecord, RecordsBatch } from '@platformatic/kafka';
import type { IncomingRecord } from '../interfaces/kafka-port.interface.js';

/** Batch attribute bits (Kafka's RecordBatch format). */
const IS_CONTROL = 0x20;
const LOG_APPEND_TIME = 0x08;

/** A transaction marker batch: it moves the position but carries no record for the sink. */
export function isControlBatch(batch: RecordsBatch): boolean {
  return (batch.attributes & IS_CONTROL) !== 0;
}

/** The offset after the batch's last one (markers and compacted gaps included). */
export function batchEnd(batch: RecordsBatch): bigint {
  return batch.firstOffset + BigInt(batch.lastOffsetDelta) + 1n;
}

/** One record as the engine receives it: the same shape, strings and Buffers, as kafkajs gives. */
export function toIncoming(
  batch: RecordsBatch,
  record: KafkaRecord,
  offset: bigint,
): IncomingRecord {
  // With LogAppendTime the broker's time is the batch's max timestamp, not the producer's.
  const timestamp =
    (batch.attributes & LOG_APPEND_TIME) !== 0
      ? batch.maxTimestamp
      : batch.firstTimestamp + record.timestampDelta;
  const headers: Record<string, Buffer | Buffer[]> = {};
  for (const [key, value] of record.headers) {
    if (!key || !value) continue;
    const name = key.toString('utf8');
    const previous = headers[name];
    headers[name] =
      previous === undefined
        ? value
        : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  return {
    key: record.key,
    value: record.value,
    timestamp: timestamp.toString(),
    offset: offset.toString(),
    headers,
  };
}
