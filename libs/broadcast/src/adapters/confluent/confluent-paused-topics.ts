import type { FetchPauses } from '../../interfaces/kafka-port.interface.js';
import type { RdConsumer, TopicPartition } from './confluent-library.js';
import type { ConfluentPartitions } from './confluent-partitions.js';

/**
 * The pauses of one librdkafka consumer's fetches: the spec's paused topics
 * (`GroupConsumerSpec.pauses`, e.g. the receipts topic while no receipt of this instance is
 * pending), and a partition whose handler takes time. librdkafka pauses partitions, not topics:
 * the consumer pauses the assigned partitions of a topic when it is paused, resumes them when it
 * is resumed, and pauses a paused topic's partitions as they are assigned. A pause drops what was
 * fetched ahead and a resume fetches from the position: nothing is skipped.
 */
export class ConfluentPausedTopics {
  private readonly pausedNow = new Set<string>();
  private unwatch: (() => void) | undefined;

  constructor(
    private readonly pauses: FetchPauses | undefined,
    private readonly topics: readonly string[],
    /** The consumer's assigned partitions. */
    private readonly partitions: ConfluentPartitions,
    /** The consumer, once connected. */
    private readonly consumer: () => RdConsumer | undefined,
    /** Whether the consumer is closing or cut: nothing is resumed then. */
    private readonly halted: () => boolean,
  ) {}

  /** Whether `topic` is left out of fetches now. */
  has(topic: string): boolean {
    return this.pausedNow.has(topic);
  }

  /** Applies the pauses now and after every change, to the assigned partitions. */
  follow(): void {
    const pauses = this.pauses;
    if (!pauses || this.unwatch) return;
    const sync = () => {
      for (const topic of this.topics) {
        const wanted = pauses.paused(topic);
        if (wanted === this.pausedNow.has(topic)) continue;
        if (wanted) this.pausedNow.add(topic);
        else this.pausedNow.delete(topic);
        this.pauseTopic(topic, wanted);
      }
    };
    sync();
    this.unwatch = pauses.watch(sync);
  }

  stop(): void {
    this.unwatch?.();
    this.unwatch = undefined;
  }

  /** Pauses the partitions just assigned of a paused topic. */
  keepPaused(assigned: readonly TopicPartition[]): void {
    const parts = assigned
      .filter((p) => this.has(p.topic))
      .map(({ topic, partition }) => ({ topic, partition }));
    if (parts.length > 0) this.consumer()?.pause(parts);
  }

  /**
   * Waits for a handler that takes time. librdkafka goes on fetching ahead meanwhile and would
   * later hand over records that retention removed in between (the engine must count those as
   * passed over); a handler still running once the event loop turned pauses its partition, which
   * drops what was fetched ahead, and the resume fetches from the position (as kafkajs fetches
   * nothing while its batch is handled). Quick handlers cost no pause.
   */
  async whileHandled(topic: string, partition: number, pending: Promise<void>): Promise<void> {
    let settled = false;
    const done = pending.then(
      () => void (settled = true),
      () => void (settled = true),
    );
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (settled) return;
    const consumer = this.consumer()!;
    consumer.pause([{ topic, partition }]);
    try {
      await done;
    } finally {
      if (!this.halted() && this.partitions.has(topic, partition) && !this.has(topic))
        consumer.resume([{ topic, partition }]);
    }
  }

  /** Pauses or resumes the assigned partitions of `topic` (the spec's pauses). */
  private pauseTopic(topic: string, paused: boolean): void {
    const consumer = this.consumer();
    const parts = this.partitions
      .all()
      .filter((p) => p.topic === topic)
      .map(({ partition }) => ({ topic, partition }));
    if (!consumer || parts.length === 0) return;
    try {
      if (paused) consumer.pause(parts);
      else consumer.resume(parts);
    } catch {
      // Not assigned any more (a rebalance, a stop): the next assignment applies the pause.
    }
  }
}
