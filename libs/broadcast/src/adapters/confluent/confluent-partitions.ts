/** OFFSET_BEGINNING: where a partition nobody sought starts. */
export const BEGINNING = -2;

const key = (topic: string, partition: number) => `${partition}\u0000${topic}`;

/** A partition at an offset, as librdkafka's assign takes it. */
export interface PartitionAt {
  topic: string;
  partition: number;
  offset: number;
}

/**
 * What one group consumer knows of its partitions: which are assigned now, where each reads next
 * (the engine's seeks, then every record and end of log handed over), the seeks made while an
 * assignment is handed to the engine (applied by the assign that follows), and a version per
 * partition that every later seek bumps, so a record fetched before a seek is told apart.
 */
export class ConfluentPartitions {
  private readonly assigned = new Map<string, Set<number>>();
  private readonly pending = new Map<string, string>();
  private readonly positions = new Map<string, number>();
  private readonly versions = new Map<string, number>();

  has(topic: string, partition: number): boolean {
    return this.assigned.get(topic)?.has(partition) ?? false;
  }

  add(partitions: readonly { topic: string; partition: number }[]): void {
    for (const { topic, partition } of partitions) {
      if (!this.assigned.has(topic)) this.assigned.set(topic, new Set());
      this.assigned.get(topic)!.add(partition);
    }
  }

  remove(partitions: readonly { topic: string; partition: number }[]): void {
    for (const { topic, partition } of partitions) this.assigned.get(topic)?.delete(partition);
  }

  clear(): void {
    this.assigned.clear();
  }

  /** topic → its assigned partitions, in order. */
  assignment(): Map<string, number[]> {
    return new Map([...this.assigned].map(([t, ps]) => [t, [...ps].sort((a, b) => a - b)]));
  }

  /** Every assigned partition at its position (BEGINNING when none is known). */
  all(): PartitionAt[] {
    return [...this.assigned].flatMap(([topic, ps]) =>
      [...ps].map((partition) => ({ topic, partition, offset: this.at(topic, partition) })),
    );
  }

  position(topic: string, partition: number): number | undefined {
    return this.positions.get(key(topic, partition));
  }

  /** Reading continues at `offset` (after a record, an end of log, or a seek). */
  moveTo(topic: string, partition: number, offset: number): void {
    this.positions.set(key(topic, partition), offset);
  }

  /** A seek to be applied by the assign under way. */
  hold(topic: string, partition: number, offset: string): void {
    this.moveTo(topic, partition, Number(offset));
    this.pending.set(key(topic, partition), offset);
  }

  /** Forgets the held seeks (a new assignment is being handed over). */
  release(): void {
    this.pending.clear();
  }

  /** `partitions` at their held seeks (BEGINNING when none). */
  withHeldSeeks(partitions: readonly { topic: string; partition: number }[]): PartitionAt[] {
    return partitions.map(({ topic, partition }) => {
      const held = this.pending.get(key(topic, partition));
      return { topic, partition, offset: held === undefined ? BEGINNING : Number(held) };
    });
  }

  /** The held seeks of partitions not in `except` (kept from before an incremental assign). */
  heldOutside(except: readonly { topic: string; partition: number }[]): PartitionAt[] {
    const skip = new Set(except.map((tp) => key(tp.topic, tp.partition)));
    return [...this.pending]
      .filter(([k]) => !skip.has(k))
      .map(([k, offset]) => {
        const [partition, topic] = k.split('\u0000') as [string, string];
        return { topic, partition: Number(partition), offset: Number(offset) };
      });
  }

  /** A seek of an assigned partition: records fetched before it are told apart. */
  sought(topic: string, partition: number, offset: number): void {
    const k = key(topic, partition);
    this.positions.set(k, offset);
    this.versions.set(k, (this.versions.get(k) ?? 0) + 1);
  }

  /** The versions now, taken before a fetch. */
  snapshot(): ReadonlyMap<string, number> {
    return new Map(this.versions);
  }

  /** Whether the partition was sought since `snapshot`. */
  soughtSince(snapshot: ReadonlyMap<string, number>, topic: string, partition: number): boolean {
    const k = key(topic, partition);
    return (this.versions.get(k) ?? 0) !== (snapshot.get(k) ?? 0);
  }

  private at(topic: string, partition: number): number {
    return this.positions.get(key(topic, partition)) ?? BEGINNING;
  }
}
