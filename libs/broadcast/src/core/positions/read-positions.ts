import type { TopicOffsets } from '../../interfaces/kafka-port.interface.js';

/** The offset a partition that appeared after the start snapshot is read from: its beginning. */
export const BEGINNING = '0';

/**
 * Where this instance reads every (topic, partition) next. The engine owns these positions;
 * broker-committed offsets are never read back (the consumer does not commit at all), and
 * every assignment of every group seeks every assigned partition from here.
 *
 * A position is the offset after the last record handed to the handlers, or the start
 * snapshot (the high watermarks taken before the first join), or, for a partition created
 * after the snapshot, its beginning: every record in it was produced after the start; or where
 * reading continues after the log lost the position (jump()).
 */
export class ReadPositions {
  private start: TopicOffsets | undefined;
  /** Offset of the last record handed over; +1 is computed only when a position is asked for. */
  private readonly delivered = new Map<string, Map<number, string>>();
  /** How far the consumer read, past records it filtered out (see reached()). */
  private readonly read = new Map<string, Map<number, ReadThrough>>();
  /** Records passed over because the log no longer held them (retention, deleted records). */
  passedOver = 0;
  /** Times reading went back because the log ended before the position (truncation). */
  rewinds = 0;

  /** True once the start snapshot was taken. */
  get hasStart(): boolean {
    return this.start !== undefined;
  }

  /**
   * The snapshot taken before the first join of a start, kept for every later candidate: a
   * refused candidate hands nothing to the handlers (see GroupMembership), so the next one
   * continues from the same place, and a replay window is looked up and handed over once.
   */
  setStart(latest: TopicOffsets): void {
    this.start ??= latest;
  }

  /** A record was handed to the handlers: the partition continues after it. */
  advance(topic: string, partition: number, offset: string): void {
    let partitions = this.delivered.get(topic);
    if (!partitions) this.delivered.set(topic, (partitions = new Map()));
    partitions.set(partition, offset);
  }

  /**
   * Whether a record at `offset` is new to the handlers: at or after the partition's position.
   * Anything below it was handed over already (a client's retry, a second fetcher after a
   * leader move) or precedes the start snapshot; only this check lets records through, so no
   * path of the client can replay them.
   */
  admits(topic: string, partition: number, offset: string): boolean {
    const last = this.delivered.get(topic)?.get(partition);
    if (last !== undefined) return compareOffsets(offset, last) > 0;
    return compareOffsets(offset, this.start?.get(topic)?.get(partition) ?? BEGINNING) >= 0;
  }

  /** The offset the partition is read from on the next assignment. */
  positionOf(topic: string, partition: number): string {
    const last = this.delivered.get(topic)?.get(partition);
    if (last !== undefined) return (BigInt(last) + 1n).toString();
    return this.start?.get(topic)?.get(partition) ?? BEGINNING;
  }

  /** The offset of the last record handed over (or the one before where a jump continues), if any. */
  lastDelivered(topic: string, partition: number): string | undefined {
    return this.delivered.get(topic)?.get(partition);
  }

  /**
   * The consumer is done with every record below `next`, including those it filtered out and
   * never handed over (transaction markers, aborted records); `timestamp`: that of the last
   * record it handed over there. Only moves forward. It does not move the position: a rejoin
   * reads the filtered records again, which hands nothing over twice.
   */
  reached(topic: string, partition: number, next: string, timestamp?: string): void {
    let partitions = this.read.get(topic);
    if (!partitions) this.read.set(topic, (partitions = new Map()));
    const offset = BigInt(next);
    const known = partitions.get(partition);
    if (known && known.next > offset) return;
    partitions.set(partition, { next: offset, timestamp: timestamp ?? known?.timestamp });
  }

  /**
   * The offset below which the consumer is done with the partition: after the last record handed
   * over, or further where it read past filtered records; undefined before either.
   */
  readThrough(topic: string, partition: number): bigint | undefined {
    const last = this.delivered.get(topic)?.get(partition);
    const reached = this.read.get(topic)?.get(partition)?.next;
    const after = last === undefined ? undefined : BigInt(last) + 1n;
    if (after === undefined || (reached !== undefined && reached > after)) return reached;
    return after;
  }

  /** The timestamp (epoch ms, decimal) of the last record the consumer reported handing over. */
  lastTimestamp(topic: string, partition: number): string | undefined {
    return this.read.get(topic)?.get(partition)?.timestamp;
  }

  /**
   * The log no longer holds the position (see out-of-range.ts): the partition continues from
   * `offset`. Forward, the records in between are counted as passed over; back, as a rewind.
   */
  jump(topic: string, partition: number, offset: string): void {
    const from = BigInt(this.positionOf(topic, partition));
    const to = BigInt(offset);
    if (to > from) this.passedOver += Number(to - from);
    else if (to < from) this.rewinds++;
    this.advance(topic, partition, (to - 1n).toString());
    this.read.get(topic)?.delete(partition);
  }
}

/** How far the consumer read a partition, and the timestamp of the last record it handed over. */
interface ReadThrough {
  next: bigint;
  timestamp: string | undefined;
}

/**
 * Orders two offsets (decimal strings, as Kafka clients give them) exactly at any size without
 * parsing: a negative one (only "-1", before offset 0, after a jump to 0) is the smallest; of
 * two others, the longer is larger, and equal lengths compare as text.
 */
export function compareOffsets(a: string, b: string): number {
  const negative = Number(b.startsWith('-')) - Number(a.startsWith('-'));
  return negative || a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
