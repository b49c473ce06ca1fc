// What a topic's log holds, read back by a consumer of its own: tells a record an instance
// missed from one the broker never kept, though it acknowledged it to the publisher.
import { randomUUID } from 'node:crypto';
import type { Admin } from 'kafkajs';
import { kafkaFor } from './faults.js';
import { waitFor } from '../broker/kafka.js';

/** One record of the log: where it is and the `seq` of its JSON payload. */
export interface LoggedRecord {
  partition: number;
  offset: string;
  seq: number;
}

/**
 * Every record of `topic` from its start up to the high watermarks of now, through a fresh
 * kafkajs consumer in a group of its own (deleted afterwards).
 */
export async function readBack(
  brokers: string[],
  admin: Admin,
  topic: string,
  timeoutMs = 60_000,
): Promise<LoggedRecord[]> {
  const highs = new Map(
    (await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, BigInt(p.high)]),
  );
  const groupId = `readback-${randomUUID()}`;
  const consumer = kafkaFor(brokers, `readback-${randomUUID()}`).consumer({ groupId });
  const records: LoggedRecord[] = [];
  const reached = new Map<number, bigint>();
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        const seq = (JSON.parse(message.value?.toString() ?? 'null') as { seq?: number } | null)
          ?.seq;
        if (typeof seq === 'number') records.push({ partition, offset: message.offset, seq });
        reached.set(partition, BigInt(message.offset) + 1n);
      },
    });
    await waitFor(
      () => [...highs].every(([partition, high]) => (reached.get(partition) ?? 0n) >= high),
      { timeoutMs, message: `${topic} not read back to its high watermarks` },
    );
  } finally {
    await consumer.disconnect().catch(() => undefined);
    await admin.deleteGroups([groupId]).catch(() => undefined);
  }
  return records;
}

/** What the log holds of what was acknowledged, for a RELIABILITY line. */
export interface LogReport {
  /** Acknowledged seqs the log does not hold. */
  ackedNotInLog: number[];
  /** Seqs the log holds more than once, each with its offsets. */
  twiceInLog: { seq: number; offsets: string[] }[];
  /** Around each seq of ackedNotInLog: the log's records of seq ± 2, as `offset:seq`. */
  aroundMissing: Record<number, string[]>;
}

/** Compares the log with the acknowledged seqs. */
export function logReport(log: readonly LoggedRecord[], acked: readonly number[]): LogReport {
  const offsetsOf = new Map<number, string[]>();
  for (const r of log) offsetsOf.set(r.seq, [...(offsetsOf.get(r.seq) ?? []), r.offset]);
  const ackedNotInLog = acked.filter((seq) => !offsetsOf.has(seq));
  const aroundMissing: Record<number, string[]> = {};
  for (const seq of ackedNotInLog)
    aroundMissing[seq] = log
      .filter((r) => Math.abs(r.seq - seq) <= 2)
      .map((r) => `${r.partition}@${r.offset}:${r.seq}`);
  return {
    ackedNotInLog,
    twiceInLog: [...offsetsOf]
      .filter(([, offsets]) => offsets.length > 1)
      .map(([seq, offsets]) => ({ seq, offsets })),
    aroundMissing,
  };
}
