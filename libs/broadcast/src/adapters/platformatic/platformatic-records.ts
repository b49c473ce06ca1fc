import type { KafkaRecord, RecordsBatch } from '@platformatic/kafka';
import type { IncomingRecord } from '../../interfaces/kafka-port.interface.js';

/** Batch attribute bits (Kafka's RecordBatch format). */
const IS_TRANSACTIONAL = 0x10;
const IS_CONTROL = 0x20;
/** A control record's key: version (int16), then type (int16): 0 abort, 1 commit. */
const ABORT_MARKER = 0;
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

/** An aborted transaction as a Fetch response lists it. */
export interface AbortedTransaction {
  producerId: bigint;
  firstOffset: bigint;
}

/**
 * The batches whose records may be handed over: no marker, and no batch of an aborted transaction.
 * @platformatic/kafka (1.35 and 2.12.1) filters aborted transactions itself (Consumer
 * #filterUncommittedMessages, one aborted range per producer id),
 * but with that filter alone a transaction aborted between committed ones of the same producer
 * was handed over (test/features/replay-control-records.spec.ts on this adapter: 'a-1', 'a-2' received),
 * and by its code it keeps every aborted range whose abort marker is not in the same answer. So
 * this applies Kafka's own rule (the Java consumer's): from the first offset of each listed
 * aborted transaction, its producer's transactional batches are skipped until its abort marker.
 */
export function committedBatches(
  batches: readonly RecordsBatch[],
  aborted: readonly AbortedTransaction[],
): RecordsBatch[] {
  const pending = [...aborted].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1));
  const abortedProducers = new Set<bigint>();
  const kept: RecordsBatch[] = [];
  for (const batch of batches) {
    const last = batchEnd(batch) - 1n;
    while (pending.length > 0 && pending[0]!.firstOffset <= last)
      abortedProducers.add(pending.shift()!.producerId);
    if (isControlBatch(batch)) {
      if (batch.records[0]?.key?.readInt16BE(2) === ABORT_MARKER)
        abortedProducers.delete(batch.producerId);
      continue;
    }
    const transactional = (batch.attributes & IS_TRANSACTIONAL) !== 0;
    if (transactional && abortedProducers.has(batch.producerId)) continue;
    kept.push(batch);
  }
  return kept;
}
