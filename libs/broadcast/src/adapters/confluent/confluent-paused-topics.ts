import type { FetchPauses } from '../../interfaces/kafka-port.interface.js';

/**
 * The spec's paused topics (`GroupConsumerSpec.pauses`, e.g. the receipts topic while no receipt
 * of this instance is pending) for one librdkafka consumer. librdkafka pauses partitions, not
 * topics: the consumer pauses the assigned partitions of a topic when it is paused, resumes them
 * when it is resumed, and pauses a paused topic's partitions as they are assigned. A pause drops
 * what was fetched ahead and a resume fetches from the position: nothing is skipped.
 */
export class ConfluentPausedTopics {
  private readonly pausedNow = new Set<string>();
  private unwatch: (() => void) | undefined;

  constructor(
    private readonly pauses: FetchPauses | undefined,
    private readonly topics: readonly string[],
  ) {}

  /** Whether `topic` is left out of fetches now. */
  has(topic: string): boolean {
    return this.pausedNow.has(topic);
  }

  /** Applies the pauses now and after every change: `apply(topic, paused)` per changed topic. */
  follow(apply: (topic: string, paused: boolean) => void): void {
    const pauses = this.pauses;
    if (!pauses || this.unwatch) return;
    const sync = () => {
      for (const topic of this.topics) {
        const wanted = pauses.paused(topic);
        if (wanted === this.pausedNow.has(topic)) continue;
        if (wanted) this.pausedNow.add(topic);
        else this.pausedNow.delete(topic);
        apply(topic, wanted);
      }
    };
    sync();
    this.unwatch = pauses.watch(sync);
  }

  stop(): void {
    this.unwatch?.();
    this.unwatch = undefined;
  }
}
