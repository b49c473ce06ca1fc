import type { TopicOffsets } from '../interfaces/kafka-port.interface.js';

/** The offset a partition that appeared after the start snapshot is read from: its beginning. */
export const BEGINNING = '0';

/**
 * Where this instance reads every (topic, partition) next. The engine owns these positions;
 * broker-committed offsets are never read back (the consumer does not commit at all), and
 * every assignment of every group seeks every assigned partition from here.
 *
 * A position is the offset after the last record handed to the handlers, or the start
 * snapshot (the high watermarks taken before the first join), or, for a partition created
 * after the snapshot, its beginning: every record in it was produced after the start.
 */
export class ReadPositions {
  private start: TopicOffsets | undefined;
  /** Offset of the last record handed over; +1 is computed only when a position is asked for. */
  private readonly delivered = new Map<string, Map<number, string>>();

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

  /** The offset of the last record handed over, if any. */
  lastDelivered(topic: string, partition: number): string | undefined {
    return this.delivered.get(topic)?.get(partition);
  }
}

/**
 * Orders two offsets (non-negative decimal strings, as Kafka clients give them) exactly at any
 * size without parsing: the longer is larger, equal lengths compare as text.
 */
export function compareOffsets(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
