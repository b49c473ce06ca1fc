import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type {
  GroupConsumerPort,
  GroupConsumerSpec,
} from '../../interfaces/kafka-port.interface.js';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import { GroupConsumerLifecycle } from '../shared/group-consumer-lifecycle.js';
import { memberInfoAssigner } from './kafkajs-member-info-assigner.js';
import { interceptOutOfRange } from './kafkajs-out-of-range.js';
import { withOwnCluster } from './kafkajs-own-cluster.js';
import { KafkajsJoinWatch } from './kafkajs-join-watch.js';
import type { KafkajsErrorClassifier } from './kafkajs-errors.js';
import type { ConsumerTimings } from '../shared/adapter-types.js';

/** One kafkajs consumer in one group: the only place that knows kafkajs's events. */
export class KafkajsGroupConsumer implements GroupConsumerPort {
  readonly groupId: string;
  private readonly consumer: Consumer;
  private readonly fetchStartedAfterJoin = new Set<number>();
  private readonly joins: KafkajsJoinWatch;
  private readonly lifecycle: GroupConsumerLifecycle;

  constructor(
    kafka: Kafka,
    private readonly spec: GroupConsumerSpec,
    timings: ConsumerTimings,
    logger: BroadcastLogger,
    errors?: KafkajsErrorClassifier,
    /** A test hook (the adapter's options): called with 'connect', 'subscribe' and 'run'. */
    probe?: (step: string) => void,
  ) {
    this.groupId = spec.groupId;
    // A refused login or a missing ACL becomes one BroadcastStartupError (kafkajs-errors.ts).
    this.lifecycle = new GroupConsumerLifecycle(spec, { logger, errors, probe });
    const { client, cluster } = withOwnCluster(kafka, () => this.createConsumer(kafka, timings));
    this.consumer = client;
    this.joins = new KafkajsJoinWatch(spec.groupId, (id) => spec.listener.joining?.(id));
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
      rebalanceTimeout: Math.max(timings.sessionTimeoutMs, 10_000),
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

  /**
   * kafkajs's disconnect() during connect/subscribe/run finds no runner to stop, and the run
   * that follows joins and consumes forever (kafkajs issue #1639): the lifecycle's stop waits
   * for the step in flight and skips the rest.
   */
  start(): Promise<void> {
    return this.lifecycle.start({
      connect: () => this.consumer.connect(),
      subscribe: () =>
        this.consumer.subscribe({
          topics: [...this.spec.topics],
          fromBeginning: this.spec.fromBeginning,
        }),
      // run() resolves once joined (kafkajs joins first); a stop ends an unanswered join.
      run: () =>
        this.consumer.run({
          // Positions belong to the engine: nothing is committed, so a seek stays local (with
          // auto-commit on, kafkajs turns a seek into an OffsetCommit and loses it if that fails).
          autoCommit: false,
          eachBatchAutoResolve: false,
          eachBatch: (payload) => this.consumeBatch(payload),
        }),
    });
  }

  seek(topic: string, partition: number, offset: string): void {
    this.consumer.seek({ topic, partition, offset });
  }

  stop(): Promise<void> {
    return this.lifecycle.stop({
      // At once: the start in flight waits for the join (run() joins first), which may never be
      // answered; the watch leaves with the member id and fails that request.
      interrupt: () => this.joins.abandon(),
      close: () => this.consumer.disconnect(),
    });
  }

  private listen(): void {
    const { events } = this.consumer;
    const { listener } = this.spec;
    this.consumer.on(events.GROUP_JOIN, ({ payload }) => {
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
    this.consumer.on(events.CRASH, ({ payload }) => this.lifecycle.crashed(payload.error));
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
