import type { IncomingRecord, OffsetBounds } from '../interfaces/kafka-port.interface.js';

/**
 * One partition of an in-memory topic: the records still held and where the log starts. Offsets
 * are numbers here and decimal strings at the port, as Kafka's are.
 */
export class PartitionLog {
  /** undefined: an offset a client filters out (a transaction marker), never handed over. */
  private readonly records: (IncomingRecord | undefined)[] = [];
  /** The first offset still held; records before it were removed (see truncate). */
  private start = 0;

  /** The high watermark: the offset the next record gets. */
  get high(): number {
    return this.start + this.records.length;
  }

  get low(): number {
    return this.start;
  }

  bounds(): OffsetBounds {
    return { low: String(this.low), high: String(this.high) };
  }

  /** Appends a record and returns its offset. */
  append(record: Omit<IncomingRecord, 'offset'>): number {
    const offset = this.high;
    this.records.push({ ...record, offset: String(offset) });
    return offset;
  }

  /** Takes the next offset for a record a client filters out (a transaction's marker). */
  appendFiltered(): number {
    this.records.push(undefined);
    return this.high - 1;
  }

  /** The record at `offset`; undefined when the log does not hold it or filters it out. */
  at(offset: number): IncomingRecord | undefined {
    return this.records[offset - this.start];
  }

  /** Whether a read position is inside the log (the high watermark included: nothing yet). */
  inRange(offset: number): boolean {
    return offset >= this.start && offset <= this.high;
  }

  /** The first offset whose record is stamped at or after `timestamp`; the high watermark if none. */
  offsetAt(timestamp: number): number {
    const index = this.records.findIndex((r) => r && Number(r.timestamp) >= timestamp);
    return index === -1 ? this.high : this.start + index;
  }

  /** Removes the records before `offset`, as retention does; offsets never change. */
  truncate(offset: number): void {
    const drop = Math.min(Math.max(0, offset - this.start), this.records.length);
    this.records.splice(0, drop);
    this.start += drop;
  }

  /** The records held, oldest first (those a client filters out left out). */
  all(): readonly IncomingRecord[] {
    return this.records.filter((r) => r !== undefined);
  }
}
