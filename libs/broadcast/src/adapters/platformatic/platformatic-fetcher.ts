import type { ClusterMetadata, Consumer } from '@platformatic/kafka';
import type { GroupConsumerSpec, IncomingRecord } from '../../interfaces/kafka-port.interface.js';
import { errorMessage } from '../../shared/async.utils.js';
import {
  type FetchResponse,
  fetchFromLeader,
  keyOf,
  OFFSET_OUT_OF_RANGE,
  planFetch,
  type Requested,
} from './platformatic-fetch-requests.js';
import { PlatformaticFetchFailures } from './platformatic-fetch-failures.js';
import { batchEnd, handOverRecords } from './platformatic-records.js';

/** ListOffsets timestamps: the log start and the high watermark. */
const EARLIEST = -2n;
const LATEST = -1n;
const ROUND = PlatformaticFetchFailures.ROUND;

/** One leader's Fetch as it ended: it never rejects (a failure is its `error`). */
interface Outcome {
  node: number;
  generation: number;
  requested: Requested;
  topicIds: Map<string, string>;
  response?: FetchResponse;
  failed: boolean;
  error?: unknown;
}

interface Position {
  offset: bigint;
  /** Bumped by every seek: a hand-over whose partition was sought meanwhile stops there. */
  version: number;
  /**
   * Set once a seek put another position in its place: what a hand-over checks after every
   * record, without building the partition's map key each time.
   */
  replaced: boolean;
}

/**
 * The fetch loop of one group member. @platformatic/kafka's MessagesStream keeps its own
 * positions, resets them at every join from ListOffsets or the committed offsets, and on
 * OFFSET_OUT_OF_RANGE ends (destroys) the whole stream (1.35) or moves the partition to the high
 * watermark or the log start by itself (2.12.1, its `fallbackMode`); the engine needs positions it
 * owns and a per-partition decision. So the adapter fetches itself, with the client's Fetch
 * (which drops aborted transactions under READ_COMMITTED and keeps the markers): every assigned
 * partition is read from the engine's seek, nothing is ever committed, and a fetch that started
 * before the latest join is discarded whole.
 */
export class PlatformaticFetcher {
  private readonly positions = new Map<string, Position>();
  private assignment: { topic: string; partitions: readonly number[] }[] = [];
  private generation = 0;
  private positionedGeneration = -1;
  private stopped = false;
  private wake: (() => void) | undefined;
  /** The Fetch in flight to each leader node. */
  private readonly inFlight = new Map<number, Promise<Outcome>>();
  /** Ends a backoff at once when stop() comes. */
  private readonly stopping = new AbortController();
  private readonly failures = new PlatformaticFetchFailures(
    () => this.consumer.clearMetadata(),
    this.stopping.signal,
  );
  /** Partitions per subscribed topic as the generation's first round saw them. */
  private partitionCounts: Map<string, number> | undefined;

  constructor(
    private readonly consumer: Consumer,
    private readonly spec: GroupConsumerSpec,
    private readonly maxWaitTimeMs: number,
    /**
     * Called once per generation when metadata shows more partitions than the generation began
     * with: the client never rebalances for that by itself (kafkajs does, on its metadata refresh).
     */
    private readonly partitionsAdded: () => void = () => undefined,
  ) {}

  /** A new generation: positions are forgotten, so only what the engine seeks now is read. */
  assign(assignment: ReadonlyMap<string, readonly number[]>): void {
    this.generation++;
    this.partitionCounts = undefined;
    this.positions.clear();
    this.assignment = [...assignment].map(([topic, partitions]) => ({ topic, partitions }));
    this.wake?.();
  }

  seek(topic: string, partition: number, offset: string): void {
    const key = keyOf(topic, partition);
    const previous = this.positions.get(key);
    if (previous) previous.replaced = true;
    const version = (previous?.version ?? 0) + 1;
    this.positions.set(key, { offset: BigInt(offset), version, replaced: false });
  }

  stop(): void {
    this.stopped = true;
    this.stopping.abort();
    this.wake?.();
  }

  /** Fetches until stop(); rejects when a broker refused too often in a row (PlatformaticFetchFailures). */
  async run(): Promise<void> {
    while (!this.stopped) {
      if (this.assignment.every((a) => a.partitions.length === 0)) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      let failure: { error: unknown; key: number } | undefined;
      try {
        failure = await this.round();
      } catch (error) {
        failure = { error, key: ROUND };
      }
      if (this.stopped) return;
      if (failure) await this.failures.failed(failure.error, failure.key);
    }
  }

  /**
   * One round: a Fetch to each leader without one in flight, then the first answer of those in
   * flight is handed over (the others stay in flight for the next rounds). As Kafka's Java
   * consumer does (a fetch per node without a pending one; records returned as soon as any node
   * answered): waiting for every leader's answer held each record for as long as the slowest
   * leader's long poll (consumer.maxWaitTimeMs, more on a loaded broker) whenever the engine's
   * topics were led by different nodes, as after every leader move of a rolling restart (traced
   * there: records answered in 14-138 ms handed over 0.25-0.74 s later, with the engine's
   * heartbeat topic's empty long poll). A partition fetched again elsewhere while an answer is
   * still in flight (its leader moved) is read once: an answer for a position that has moved on
   * since is dropped (handOver).
   */
  private async round(): Promise<{ error: unknown; key: number } | undefined> {
    const generation = this.generation;
    await this.positionUnsought(generation);
    const topics = this.assignment.map((a) => a.topic);
    const metadata = await this.consumer.metadata({ topics });
    this.watchPartitionCounts(metadata, generation);
    const { byLeader, requested, topicIds } = planFetch(
      this.assignment,
      metadata,
      (topic, partition) => this.current(topic, partition)?.offset,
    );
    this.failures.forgetAllBut((node) => byLeader.has(node) || this.inFlight.has(node));
    for (const [node, requestTopics] of byLeader) {
      if (this.inFlight.has(node)) continue;
      const base = { node, generation, requested, topicIds };
      const fetched = fetchFromLeader(this.consumer, node, requestTopics, this.maxWaitTimeMs).then(
        (response): Outcome => ({ ...base, response, failed: false }),
        (error: unknown): Outcome => ({ ...base, failed: true, error }),
      );
      this.inFlight.set(node, fetched);
    }
    if (this.inFlight.size === 0) return;
    const outcome = await Promise.race(this.inFlight.values());
    this.inFlight.delete(outcome.node);
    if (this.stopped) return;
    if (outcome.failed) return { error: outcome.error, key: outcome.node };
    this.failures.succeeded(outcome.node);
    // A fetch that began before the latest join read positions the engine has replaced.
    if (outcome.generation !== this.generation) return;
    if (this.positionedGeneration !== outcome.generation) {
      this.positionedGeneration = outcome.generation;
      this.spec.listener.positioned?.();
    }
    await this.handOver(outcome.response!, outcome.topicIds, outcome.requested, outcome.generation);
    this.failures.succeeded(ROUND);
  }

  private async handOver(
    response: FetchResponse,
    topicIds: Map<string, string>,
    requested: Requested,
    generation: number,
  ): Promise<void> {
    for (const { topicId, partitions } of response.responses) {
      const topic = topicIds.get(topicId);
      if (topic === undefined) continue;
      for (const p of partitions) {
        const asked = requested.get(keyOf(topic, p.partitionIndex));
        const position = this.positions.get(keyOf(topic, p.partitionIndex));
        // Sought since the request went out: the seek wins, the answer is dropped.
        if (!asked || !position || position.offset !== asked.offset) continue;
        if (p.errorCode === OFFSET_OUT_OF_RANGE) {
          await this.resumeOutOfRange(topic, p.partitionIndex, position.version, generation);
        } else if (p.errorCode === 0) {
          await this.consumePartition(topic, p.partitionIndex, p, position, generation);
        }
        if (generation !== this.generation || this.stopped) return;
      }
    }
  }

  private async consumePartition(
    topic: string,
    partition: number,
    answer: FetchResponse['responses'][number]['partitions'][number],
    position: Position,
    generation: number,
  ): Promise<void> {
    const stale = () => this.stopped || generation !== this.generation || position.replaced;
    const batches = answer.records ?? [];
    const from = position.offset;
    const sink = (record: IncomingRecord) => this.spec.sink(topic, partition, record);
    const timestamp = await handOverRecords(answer, position, sink, stale);
    if (stale()) return;
    // Markers and aborted records never reach the sink; the position still passes them.
    const last = batches[batches.length - 1];
    const next = last && batchEnd(last) > position.offset ? batchEnd(last) : position.offset;
    if (next === from) return;
    position.offset = next;
    this.spec.progress?.(topic, partition, next.toString(), timestamp);
  }

  /** The engine decides where a position the log no longer holds continues; nothing is reset. */
  private async resumeOutOfRange(
    topic: string,
    partition: number,
    version: number,
    generation: number,
  ): Promise<void> {
    const decide = this.spec.outOfRange;
    if (!decide) throw new Error('no out-of-range decision was given to this consumer');
    let offset: string;
    try {
      offset = await decide(topic, partition);
    } catch (failure) {
      throw new Error(
        `Could not decide where ${topic}[${partition}] continues after OFFSET_OUT_OF_RANGE: ${errorMessage(failure)}`,
        { cause: failure },
      );
    }
    const current = this.current(topic, partition);
    if (generation === this.generation && current?.version === version)
      this.seek(topic, partition, offset);
  }

  /** Partitions assigned but never sought start where `fromBeginning` says (the engine seeks all). */
  private async positionUnsought(generation: number): Promise<void> {
    const missing = this.assignment
      .map(({ topic, partitions }) => ({
        topic,
        partitions: partitions.filter((p) => !this.positions.has(keyOf(topic, p))),
      }))
      .filter((a) => a.partitions.length > 0);
    if (missing.length === 0) return;
    const offsets = await this.consumer.listOffsets({
      topics: missing.map((a) => a.topic),
      timestamp: this.spec.fromBeginning ? EARLIEST : LATEST,
    });
    if (generation !== this.generation) return;
    for (const { topic, partitions } of missing) {
      for (const partition of partitions) {
        const offset = offsets.get(topic)?.[partition];
        if (offset !== undefined && !this.positions.has(keyOf(topic, partition)))
          this.seek(topic, partition, offset.toString());
      }
    }
  }

  /**
   * Notes the partition counts of the generation's first round, and reports (once) a later
   * round's metadata (refreshed every metadataMaxAgeMs) that shows more: the new partitions are
   * assigned by a rebalance only.
   */
  private watchPartitionCounts(metadata: ClusterMetadata, generation: number): void {
    if (generation !== this.generation) return;
    const counts = new Map(
      [...this.spec.topics].map((t) => [t, metadata.topics.get(t)?.partitionsCount ?? 0]),
    );
    if (!this.partitionCounts) {
      this.partitionCounts = counts;
      return;
    }
    const grew = [...counts].some(([t, n]) => n > (this.partitionCounts!.get(t) ?? 0));
    if (!grew) return;
    this.partitionCounts = counts;
    this.partitionsAdded();
  }

  private current(topic: string, partition: number): Position | undefined {
    return this.positions.get(keyOf(topic, partition));
  }
}
