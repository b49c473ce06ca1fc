import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { GroupConsumerSpec } from '../../interfaces/kafka-port.interface.js';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type { ConsumerOwner, GroupConsumerClient } from '../shared/group-consumer-lifecycle.js';
import { memberInfoAssigner } from './kafkajs-member-info-assigner.js';
import { interceptOutOfRange } from './kafkajs-out-of-range.js';
import { cutRequests, notRetriable, withOwnCluster } from './kafkajs-own-cluster.js';
import { KafkajsJoinWatch, stoppedError } from './kafkajs-join-watch.js';
import type { KafkajsErrors } from './kafkajs-errors.js';
import type { KafkajsEarlierMembers } from './kafkajs-earlier-members.js';
import { rebalanceTimeoutMs, type ConsumerTimings } from '../shared/adapter-types.js';

/** What one kafkajs group consumer is made with. */
export interface KafkajsConsumerDeps {
  kafka: Kafka;
  timings: ConsumerTimings;
  logger: BroadcastLogger;
  errors: KafkajsErrors;
  /** Its lifecycle (adapters/shared/group-consumer-lifecycle.ts), which decides start and stop. */
  owner: ConsumerOwner;
  /** The port's members per group, so a rejoin removes the member a lost consumer left behind. */
  earlierMembers?: KafkajsEarlierMembers;
}

/**
 * One kafkajs consumer in one group, the steps its lifecycle runs: the only place that knows
 * kafkajs's events.
 */
export class KafkajsGroupConsumer implements GroupConsumerClient {
  readonly errors: KafkajsErrors;
  private readonly consumer: Consumer;
  /** The consumer's own kafkajs Cluster (kafkajs-own-cluster.ts), for cut(). */
  private readonly cluster: unknown;
  private readonly fetchStartedAfterJoin = new Set<number>();
  private readonly joins: KafkajsJoinWatch;
  private readonly owner: ConsumerOwner;
  /** Ends following the spec's pauses (close). */
  private unwatchPauses: (() => void) | undefined;

  constructor(
    private readonly spec: GroupConsumerSpec,
    deps: KafkajsConsumerDeps,
  ) {
    const { kafka, timings, logger, owner } = deps;
    // A refused login or a missing ACL becomes one BroadcastStartupError (kafkajs-errors.ts).
    this.errors = deps.errors;
    this.owner = owner;
    const { client, cluster } = withOwnCluster(kafka, () => this.createConsumer(kafka, timings));
    this.consumer = client;
    this.cluster = cluster;
    this.joins = new KafkajsJoinWatch(
      spec.groupId,
      {
        joining: (id) => spec.listener.joining?.(id),
        stopped: () => owner.stopRequested,
        leftEarlier: (memberId) =>
          logger.log(`Removed our earlier member ${memberId} of ${spec.groupId} before rejoining`, {
            group: spec.groupId,
            memberId,
          }),
      },
      deps.earlierMembers,
    );
    if (!this.joins.watch(cluster))
      logger.warn(
        `This kafkajs version cannot leave ${spec.groupId} while its join is unanswered`,
        {
          group: spec.groupId,
          reason: 'kafkajs internals not found',
        },
      );
    if (
      !interceptOutOfRange(cluster, (topic, partition) => this.resumeOutOfRange(topic, partition))
    )
      logger.warn(
        `This kafkajs version cannot be kept from committing when ${spec.groupId} reads out of range`,
        { group: spec.groupId, reason: 'kafkajs internals not found' },
      );
    this.listen();
  }

  private createConsumer(kafka: Kafka, timings: ConsumerTimings): Consumer {
    const spec = this.spec;
    const { userData } = spec;
    return kafka.consumer({
      groupId: spec.groupId,
      sessionTimeout: timings.sessionTimeoutMs,
      rebalanceTimeout: rebalanceTimeoutMs(timings),
      heartbeatInterval: timings.heartbeatIntervalMs,
      maxWaitTimeInMs: timings.maxWaitTimeMs,
      metadataMaxAge: timings.metadataMaxAgeMs,
      allowAutoTopicCreation: false,
      ...(userData !== undefined && { partitionAssigners: [memberInfoAssigner(userData)] }),
      // The engine decides how to recover (same group, new member); kafkajs must not
      // restart behind its back with a consumer the engine no longer tracks.
      retry: { retries: 5, restartOnFailure: async () => false },
    });
  }

  /** The engine decides where the partition continues; the seek is applied by the next fetch. */
  private async resumeOutOfRange(topic: string, partition: number): Promise<void> {
    const decide = this.spec.outOfRange;
    if (!decide) throw new Error('no out-of-range decision was given to this consumer');
    this.seek(topic, partition, await decide(topic, partition));
  }

  connect(): Promise<void> {
    return this.consumer.connect();
  }

  subscribe(): Promise<void> {
    return this.consumer.subscribe({
      topics: [...this.spec.topics],
      fromBeginning: this.spec.fromBeginning,
    });
  }

  /**
   * kafkajs's disconnect() during connect/subscribe/run finds no runner to stop, and the run that
   * follows joins and consumes forever (kafkajs issue #1639): the lifecycle runs this step only if
   * no stop was asked, and a stop waits for it. It resolves once joined (kafkajs joins first); a
   * stop ends a join that is not complete (interrupt).
   */
  run(): Promise<void> {
    const running = this.consumer.run({
      // Positions belong to the engine: nothing is committed, so a seek stays local (with
      // auto-commit on, kafkajs turns a seek into an OffsetCommit and loses it if that fails).
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.consumeBatch(payload),
    });
    // run() made kafkajs's consumer group before its first await, and joins before any fetch:
    // the pauses are in place before the first fetch.
    this.followPauses();
    return running;
  }

  /**
   * Applies the spec's pauses now and on every change. kafkajs leaves a paused topic out of its
   * fetches and drops a fetched batch of it unresolved, so it is fetched again after the resume:
   * the position stays where it was.
   */
  private followPauses(): void {
    const pauses = this.spec.pauses;
    if (!pauses || this.unwatchPauses) return;
    const pausedNow = new Set<string>();
    const apply = () => {
      const changed = this.spec.topics.filter((t) => pauses.paused(t) !== pausedNow.has(t));
      try {
        for (const topic of changed) {
          if (pausedNow.delete(topic)) this.consumer.resume([{ topic }]);
          else {
            this.consumer.pause([{ topic }]);
            pausedNow.add(topic);
          }
        }
      } catch {
        // Its consumer group is gone (a crash, a disconnect): nothing is fetched any more.
      }
    };
    apply();
    this.unwatchPauses = pauses.watch(apply);
  }

  seek(topic: string, partition: number, offset: string): void {
    this.consumer.seek({ topic, partition, offset });
  }

  /**
   * At once: a join that is not complete may never be answered, and kafkajs leaves only a member
   * whose join completed; the watch leaves every member it was handed out and ends the join.
   */
  interrupt(): Promise<void> {
    return this.joins.abandon();
  }

  close(): Promise<void> {
    this.unwatchPauses?.();
    return this.consumer.disconnect();
  }

  cut(): void {
    cutRequests(this.cluster, notRetriable(stoppedError(this.spec.groupId)));
  }

  private listen(): void {
    const { events } = this.consumer;
    const { listener } = this.spec;
    this.consumer.on(events.GROUP_JOIN, ({ payload }) => {
      this.joins.joined(payload.memberId);
      this.fetchStartedAfterJoin.clear();
      const assignment = new Map(Object.entries(payload.memberAssignment));
      listener.joined(payload.memberId, assignment, payload.isLeader);
    });
    this.consumer.on(events.FETCH_START, ({ payload }) => {
      this.fetchStartedAfterJoin.add(payload.nodeId);
    });
    this.consumer.on(events.FETCH, ({ payload }) => {
      // Offsets are resolved inside the fetch; a fetch that began before the latest join proves nothing.
      if (this.fetchStartedAfterJoin.has(payload.nodeId)) listener.positioned?.();
    });
    // kafkajs never calls eachBatch for a batch its filtering emptied (only transaction markers
    // or aborted records: runner.js handleBatch), but resolves past it and reports it here.
    this.consumer.on(events.END_BATCH_PROCESS, ({ payload }) => {
      if (payload.batchSize === 0)
        this.spec.progress?.(payload.topic, payload.partition, after(payload.lastOffset));
    });
    this.consumer.on(events.CRASH, ({ payload }) => this.owner.crashed(payload.error));
  }

  private async consumeBatch({
    batch,
    resolveOffset,
    heartbeat,
    isRunning,
    isStale,
  }: EachBatchPayload) {
    const { topic, partition, messages } = batch;
    const sink = this.spec.sink;
    for (let i = 0; i < messages.length; i++) {
      if (!isRunning() || isStale()) return;
      const message = messages[i]!;
      const pending = sink(topic, partition, message);
      // Only awaited handlers take time: after each, heartbeat so that a few slow ones (each up
      // to handlerTimeoutMs) in one batch cannot outlast the session. Synchronous dispatch
      // needs no per-record await; the heartbeat after the batch covers it.
      if (pending) await pending;
      resolveOffset(message.offset);
      if (pending) await heartbeat();
    }
    // Done with the whole batch, up to its last offset: that may be a transaction marker after
    // the last record, which kafkajs filtered out (batch.js).
    const last = messages[messages.length - 1];
    this.spec.progress?.(topic, partition, after(batch.lastOffset()), last?.timestamp);
    await heartbeat();
  }
}

/** The offset after `offset` (decimal strings, beyond 2^53 too). */
function after(offset: string): string {
  return (BigInt(offset) + 1n).toString();
}
