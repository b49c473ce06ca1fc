import type { ClusterMetadata, Consumer } from '@platformatic/kafka';
import type { GroupConsumerSpec, IncomingRecord } from '../../interfaces/kafka-port.interface.js';
import { backoffDelay, errorMessage, pause } from '../../shared/async.utils.js';
import {
  type FetchResponse,
  fetchFromLeader,
  keyOf,
  OFFSET_OUT_OF_RANGE,
  planFetch,
  type Requested,
} from './platformatic-fetch-requests.js';
import { leaderMoved, unreachable } from './platformatic-fetch-leaders.js';
import { batchEnd, handOverRecords } from './platformatic-records.js';

/** ListOffsets timestamps: the log start and the high watermark. */
const EARLIEST = -2n;
const LATEST = -1n;
/**
 * Failed fetch rounds in a row (each already retried by the client) before the consumer crashes,
 * counting only rounds that a broker refused: unreachable brokers and moved leaders never count.
 */
const MAX_FAILED_ROUNDS = 5;

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
  private failedRounds = 0;
  /** Rounds that failed in a row, refused or not: the backoff before the next. */
  private failuresInARow = 0;
  /** Ends a backoff at once when stop() comes. */
  private readonly stopping = new AbortController();
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

  /** Fetches until stop(); rejects when fetching failed MAX_FAILED_ROUNDS rounds in a row. */
  async run(): Promise<void> {
    while (!this.stopped) {
      if (this.assignment.every((a) => a.partitions.length === 0)) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      try {
        await this.round();
        this.failedRounds = 0;
        this.failuresInARow = 0;
      } catch (error) {
        if (this.stopped) return;
        await this.afterFailedRound(error);
      }
    }
  }

  /**
   * The metadata is refreshed before the next round. A moved leader is fetched from again at
   * once (the first time in a row): the refreshed metadata names the new one. An unreachable
   * broker (an outage, a restart) is retried with backoff for as long as it lasts, as Kafka's
   * consumers do: whether the member still holds its partitions is the membership's call (the
   * KIP-848 heartbeat holds records meanwhile; the classic client's heartbeats expire it), and a
   * crash here made the engine join with a new member that then waited out the old one's session.
   */
  private async afterFailedRound(error: unknown): Promise<void> {
    const moved = leaderMoved(error);
    if (!moved && !unreachable(error) && ++this.failedRounds >= MAX_FAILED_ROUNDS) throw error;
    this.consumer.clearMetadata();
    const inARow = ++this.failuresInARow;
    if (moved && inARow === 1) return;
    await pause(backoffDelay(inARow, 100, 2_000), this.stopping.signal);
  }

  private async round(): Promise<void> {
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
    const responses = await Promise.all(
      [...byLeader].map(([node, requestTopics]) =>
        fetchFromLeader(this.consumer, node, requestTopics, this.maxWaitTimeMs),
      ),
    );
    // A fetch that began before the latest join read positions the engine has replaced.
    if (generation !== this.generation || this.stopped) return;
    if (this.positionedGeneration !== generation) {
      this.positionedGeneration = generation;
      this.spec.listener.positioned?.();
    }
    for (const response of responses)
      await this.handOver(response, topicIds, requested, generation);
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
