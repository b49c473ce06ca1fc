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
  private fixed = false;

  /** True once the start snapshot no longer changes (the instance has been ready). */
  get isFixed(): boolean {
    return this.fixed;
  }

  /**
   * The snapshot taken before a join. Until the instance is first ready each startup attempt
   * takes a new one (what an earlier, refused attempt read was before "ready" anyway).
   */
  setStart(latest: TopicOffsets): void {
    if (this.fixed) return;
    this.start = latest;
    this.delivered.clear();
  }

  /** Keeps the start snapshot from now on: later groups resume from these positions. */
  fix(): void {
    this.fixed = true;
  }

  /** A record was handed to the handlers: the partition continues after it. */
  advance(topic: string, partition: number, offset: string): void {
    let partitions = this.delivered.get(topic);
    if (!partitions) this.delivered.set(topic, (partitions = new Map()));
    partitions.set(partition, offset);
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
