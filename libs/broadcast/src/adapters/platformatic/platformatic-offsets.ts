import type { Admin, ClusterMetadata } from '@platformatic/kafka';
import type { OffsetBounds, TopicOffsets } from '../../interfaces/kafka-port.interface.js';
import { latestOffsetsRetrying } from '../shared/latest-offsets.js';
import type { PlatformaticErrors } from './platformatic-errors.js';
import type { PlatformaticKnownLeaders } from './platformatic-known-leaders.js';

/** ListOffsets timestamps: the high watermark and the log start. */
const LATEST = -1n;
const EARLIEST = -2n;
/** High watermarks, as the port says and kafkajs's admin reads them (READ_UNCOMMITTED). */
const READ_UNCOMMITTED = 0;

/** PlatformaticAdmin's offset reads: the start snapshot, a topic's bounds, offsets by time. */
export class PlatformaticOffsets {
  constructor(
    private readonly admin: Admin,
    private readonly errors: PlatformaticErrors,
    private readonly known?: PlatformaticKnownLeaders,
  ) {}

  latest(topics: readonly string[]): Promise<TopicOffsets> {
    return latestOffsetsRetrying(
      async (attempt) => {
        // A retry asks for fresh metadata (a leader may have moved).
        if (attempt > 0) this.admin.clearMetadata();
        // The first attempt reuses the metadata the topic check read; a retry asks the client.
        const listed = await this.listOffsets(topics, () => LATEST, attempt === 0);
        return new Map(
          [...listed].map(([topic, p]) => [
            topic,
            new Map([...p].map(([i, o]) => [i, o.toString()])),
          ]),
        );
      },
      this.errors,
      topics,
    );
  }

  async bounds(topic: string): Promise<Map<number, OffsetBounds>> {
    const [low, high] = await Promise.all([
      this.listOffsets([topic], () => EARLIEST),
      this.listOffsets([topic], () => LATEST),
    ]);
    const bounds = new Map<number, OffsetBounds>();
    for (const [partition, offset] of high.get(topic) ?? [])
      bounds.set(partition, {
        low: (low.get(topic)?.get(partition) ?? 0n).toString(),
        high: offset.toString(),
      });
    return bounds;
  }

  /** The log starts alone: one ListOffsets (bounds sends two), to the leaders it knows. */
  async logStart(topic: string): Promise<Map<number, string>> {
    const low = await this.listOffsets([topic], () => EARLIEST, true);
    return new Map([...(low.get(topic) ?? [])].map(([i, o]) => [i, o.toString()]));
  }

  async forTimestamp(topic: string, timestamp: number): Promise<Map<number, string>> {
    const [found, high] = await Promise.all([
      this.listOffsets([topic], () => BigInt(timestamp)),
      this.listOffsets([topic], () => LATEST),
    ]);
    const offsets = new Map<number, string>();
    // -1: no record at or after the timestamp; the port promises the high watermark then.
    for (const [partition, offset] of found.get(topic) ?? [])
      offsets.set(partition, (offset >= 0n ? offset : high.get(topic)!.get(partition)!).toString());
    return offsets;
  }

  /** Per topic, per partition: the offset ListOffsets answers for `at(partition)`. */
  private async listOffsets(
    topics: readonly string[],
    at: (partition: number) => bigint,
    knownLeaders = false,
  ): Promise<Map<string, Map<number, bigint>>> {
    const metadata: ClusterMetadata = await this.admin.metadata({ topics: [...topics] });
    const request = topics.map((name) => ({
      name,
      partitions: Array.from(
        { length: metadata.topics.get(name)?.partitionsCount ?? 0 },
        (_, partitionIndex) => ({ partitionIndex, timestamp: at(partitionIndex) }),
      ),
    }));
    const listed =
      (knownLeaders ? await this.known?.listOffsets(request, READ_UNCOMMITTED) : undefined) ??
      (await this.admin.listOffsets({ topics: request, isolationLevel: READ_UNCOMMITTED }));
    return new Map(
      listed.map((t) => [t.name, new Map(t.partitions.map((p) => [p.partitionIndex, p.offset]))]),
    );
  }
}
