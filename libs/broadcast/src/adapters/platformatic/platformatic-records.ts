import type { KafkaRecord, RecordsBatch } from '@platformatic/kafka';
import type { IncomingRecord } from '../../interfaces/kafka-port.interface.js';

/** One partition's part of a Fetch answer: its record batches and aborted transactions. */
export interface PartitionAnswer {
  records?: RecordsBatch[] | null;
  abortedTransactions?: readonly AbortedTransaction[] | null;
}

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

/**
 * Offsets and timestamps below this are exact as doubles, a record's delta (int32) added: every
 * real log. Above it (only a crafted one) they are computed as BigInt, as the client gives them.
 */
const EXACT_AS_DOUBLE = BigInt(Number.MAX_SAFE_INTEGER - 2 ** 32);

/**
 * Hands the committed records of one partition's answer from `position.offset` on to `sink`, one
 * at a time, each after the previous one settled, until `stale()`. `position.offset` is set past
 * the last record handed over once, at the end or when the sink throws (not per record: that was
 * a BigInt per record). Returns the timestamp of that record.
 */
export async function handOverRecords(
  answer: PartitionAnswer,
  position: { offset: bigint },
  sink: (record: IncomingRecord) => void | Promise<void>,
  stale: () => boolean,
): Promise<string | undefined> {
  const from = position.offset;
  let timestamp: string | undefined;
  let lastBatch: RecordsBatch | undefined;
  let lastDelta = 0;
  try {
    for (const batch of committedBatches(answer.records ?? [], answer.abortedTransactions ?? [])) {
      const first = firstDeltaFrom(batch, from);
      const toIncoming = incomingOf(batch);
      for (const record of batch.records) {
        if (record.offsetDelta < first) continue;
        if (stale()) return timestamp;
        const incoming = toIncoming(record);
        const pending = sink(incoming);
        if (pending) await pending;
        if (stale()) return timestamp;
        lastBatch = batch;
        lastDelta = record.offsetDelta;
        timestamp = incoming.timestamp;
      }
    }
    return timestamp;
  } finally {
    if (lastBatch) position.offset = lastBatch.firstOffset + BigInt(lastDelta) + 1n;
  }
}

/** A converter of one batch's records into what the engine receives: see `incomingOf`. */
export type ToIncoming = (record: KafkaRecord) => IncomingRecord;

/**
 * The records of one batch as the engine receives them: the same shape, strings and Buffers, as
 * kafkajs gives. Made once per batch: the batch's first offset and timestamp are converted once,
 * each record's are added as doubles when that is exact (BigInt arithmetic and BigInt#toString
 * per record were a fifth of the adapter's CPU per message in benchmark 4's backlog drain), and a
 * record whose timestamp delta repeats the previous one's reuses its text.
 */
export function incomingOf(batch: RecordsBatch): ToIncoming {
  const firstOffset = batch.firstOffset <= EXACT_AS_DOUBLE ? Number(batch.firstOffset) : undefined;
  // With LogAppendTime the broker's time is the batch's max timestamp, not the producer's.
  const appendTime =
    (batch.attributes & LOG_APPEND_TIME) !== 0 ? batch.maxTimestamp.toString() : undefined;
  const firstTimestamp =
    batch.firstTimestamp <= EXACT_AS_DOUBLE && batch.firstTimestamp >= -EXACT_AS_DOUBLE
      ? Number(batch.firstTimestamp)
      : undefined;
  let lastDelta: bigint | undefined;
  let lastTimestamp = '';
  const timestampOf = (record: KafkaRecord): string => {
    if (appendTime !== undefined) return appendTime;
    const delta = record.timestampDelta;
    if (delta === lastDelta) return lastTimestamp;
    // Both terms exact, so a sum that is a safe integer is the exact one.
    const exactDelta = Number(delta);
    const sum =
      firstTimestamp !== undefined && Number.isSafeInteger(exactDelta)
        ? firstTimestamp + exactDelta
        : undefined;
    lastTimestamp = Number.isSafeInteger(sum)
      ? String(sum)
      : (batch.firstTimestamp + delta).toString();
    lastDelta = delta;
    return lastTimestamp;
  };
  return (record) => ({
    key: record.key,
    value: record.value,
    timestamp: timestampOf(record),
    offset:
      firstOffset === undefined
        ? (batch.firstOffset + BigInt(record.offsetDelta)).toString()
        : String(firstOffset + record.offsetDelta),
    headers: record.headers.length === 0 ? {} : headersOf(record.headers),
  });
}

/** The first offset delta of `batch` at or after `from`: the records before it were handed over. */
export function firstDeltaFrom(batch: RecordsBatch, from: bigint): number {
  const skip = from - batch.firstOffset;
  if (skip <= 0n) return 0;
  return skip > BigInt(batch.lastOffsetDelta) ? batch.lastOffsetDelta + 1 : Number(skip);
}

/** A record's headers by name; a name received several times keeps every value, in order. */
function headersOf(received: KafkaRecord['headers']): Record<string, Buffer | Buffer[]> {
  const headers: Record<string, Buffer | Buffer[]> = {};
  for (const [key, value] of received) {
    if (!key || !value) continue;
    const name = key.toString('utf8');
    const previous = headers[name];
    headers[name] =
      previous === undefined
        ? value
        : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  return headers;
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
