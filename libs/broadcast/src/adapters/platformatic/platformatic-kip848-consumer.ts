import type { Connection, ConnectionPool, Consumer } from '@platformatic/kafka';
import type { GroupConsumerSpec, RecordSink } from '../../interfaces/kafka-port.interface.js';
import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import { rebalanceTimeoutMs } from '../shared/adapter-types.js';
import type { GroupConsumerClient } from '../shared/group-consumer-lifecycle.js';
import { hasProtocolError, type PlatformaticErrors } from './platformatic-errors.js';
import { PlatformaticFetcher } from './platformatic-fetcher.js';
import { withPauses } from './platformatic-paused-fetches.js';
import { ConsumerProtocolHeartbeat } from './platformatic-consumer-heartbeat.js';
import { readGroupSessionMs } from './platformatic-group-session.js';
import type { PlatformaticConsumerDeps } from './platformatic-group-consumer.js';

export interface Kip848Deps extends PlatformaticConsumerDeps {
  /** The group's coordinator; `fresh`: ask the broker, the one known moved. */
  coordinatorOf: (groupId: string, fresh: boolean) => Promise<{ host: string; port: number }>;
  /** The bootstrap brokers, for error messages. */
  brokers: string;
  /** The pool the heartbeats go through: the admin's, which it borrows (its own without). */
  pool: (consumer: Consumer) => ConnectionPool;
  /** Fails the requests in flight on the borrowed connections (the cut, see cut()). */
  cutShared: () => Promise<void>;
}

/**
 * One member of one group on the KIP-848 consumer protocol: the broker assigns the partitions,
 * there is no leader, no member user data and no initial rebalance delay. Every assignment the
 * broker gives is a new "join" for the engine (it seeks and verifies again); the leader flag says
 * that this member held every partition when it first got any (the first of members that joined
 * together), so the engine's tie-break keeps one of them.
 */
export class PlatformaticKip848Consumer implements GroupConsumerClient {
  readonly groupId: string;
  readonly errors: PlatformaticErrors;
  private consumer: ReturnType<Kip848Deps['make']> | undefined;
  private fetcher: PlatformaticFetcher | undefined;
  private heartbeat: ConsumerProtocolHeartbeat | undefined;
  private fetching: Promise<void> | undefined;
  private joining: Promise<void> | undefined;
  private leader: boolean | undefined;
  /** Assignments are handed over in the order the broker gave them. */
  private assigning: Promise<void> = Promise.resolve();
  private coordinatorAddress: Promise<{ host: string; port: number }> | undefined;
  /** topic id → [name, partition count], from the metadata of the subscribed topics. */
  private topicsById = new Map<string, [string, number]>();

  constructor(
    private readonly spec: GroupConsumerSpec,
    private readonly deps: Kip848Deps,
  ) {
    this.groupId = spec.groupId;
    this.errors = deps.errors;
  }

  /** Connects: reads the subscribed topics' metadata. */
  connect(): Promise<void> {
    this.consumer = this.deps.make();
    return this.readTopics();
  }

  /**
   * The heartbeat names the topics to the broker; the client is told them too, for its fetch
   * retries. Why: the client's Fetch retry reads the leader again from metadata of the topics it
   * tracks, and with none tracked it asked Metadata for no topic and sent every retry to the node
   * the first attempt went to: after a leader move, the old leader (refused or NOT_LEADER), each
   * retry after the first one second later (issue #37: in a rolling restart, handlers on KIP-848
   * went without records longer than on classic, whose consumer tracks them by subscribing).
   */
  subscribe(): void {
    this.consumer!.topics.trackAll(...this.spec.topics);
  }

  /** Starts the fetch loop, then joins in the background. */
  run(): void {
    const consumer = this.consumer!;
    const { timings } = this.deps;
    const fetcher = (this.fetcher = new PlatformaticFetcher(
      withPauses(consumer, this.spec.pauses),
      { ...this.spec, sink: this.whileInGroup },
      timings.maxWaitTimeMs,
    ));
    this.fetching = fetcher.run().catch((error: unknown) => this.crash(error));
    const heartbeat = (this.heartbeat = new ConsumerProtocolHeartbeat({
      groupId: this.groupId,
      topics: this.spec.topics,
      rebalanceTimeoutMs: rebalanceTimeoutMs(timings),
      sessionTimeoutMs: timings.sessionTimeoutMs,
      // The engine's claim on the group, which the broker enforces (see GroupConsumerSpec).
      instanceId: this.spec.instanceId ?? null,
      // The member info, for the roster (sent as the member's rack id).
      rackId: this.spec.userData ?? null,
      coordinator: (fresh) => this.coordinator(fresh),
      assigned: (memberId, owned) => {
        this.assigning = this.assigning.then(() => this.assigned(memberId, owned));
      },
      lost: (error) => this.crash(error),
      // Over the coordinator's connection, which the heartbeats just used: any broker answers it.
      readSessionMs: () =>
        this.coordinator(false).then((connection) => readGroupSessionMs(connection, this.groupId)),
    }));
    // KIP-848: the member makes its own id, so the engine knows it before the broker answers.
    this.spec.listener.joining?.(heartbeat.memberId);
    this.joining = heartbeat.join().catch((error: unknown) => this.crash(error));
  }

  /**
   * Records reach the engine only while the broker surely holds the member (see
   * HeartbeatTiming.surelyHeld: the broker's session since the last answered heartbeat was sent,
   * less a margin): a member the broker may have expired could share its group with an instance
   * that took it. A record that comes later waits for the next
   * answered heartbeat; if the membership ends first it is dropped and its partition sought back
   * to it (the batch stops there), so nothing is skipped.
   */
  private readonly whileInGroup: RecordSink = (topic, partition, record) => {
    const heartbeat = this.heartbeat;
    if (heartbeat?.surelyInGroup()) return this.spec.sink(topic, partition, record);
    return (heartbeat?.nextAnswer() ?? Promise.resolve(false)).then((inGroup) => {
      if (inGroup) return this.spec.sink(topic, partition, record);
      this.fetcher?.seek(topic, partition, record.offset);
    });
  };

  seek(topic: string, partition: number, offset: string): void {
    this.fetcher?.seek(topic, partition, offset);
  }

  async close(): Promise<void> {
    const consumer = this.consumer;
    if (!consumer) return;
    this.fetcher?.stop();
    // A record held for the next heartbeat answer is let go (sought back): the fetch loop ends now.
    this.heartbeat?.stop();
    await this.fetching;
    // At once, a join in flight included (see leave); closing then ends that join's wait.
    await this.heartbeat?.leave();
    await consumer.close(true);
    await this.joining;
  }

  /**
   * Closing the client fails what it has in flight (a fetch, a heartbeat) and closes its sockets;
   * on borrowed connections their owner closes them (they reopen at its next request).
   */
  async cut(): Promise<void> {
    this.fetcher?.stop();
    this.heartbeat?.stop();
    await Promise.all([this.consumer?.close(true), this.consumer && this.deps.cutShared()]);
  }

  /** The coordinator's connection: found once, found again only after it moved (`fresh`). */
  private coordinator(fresh: boolean): Promise<Connection> {
    const consumer = this.consumer!;
    if (fresh) {
      consumer.clearMetadata();
      this.coordinatorAddress = undefined;
    }
    const address = (this.coordinatorAddress ??= this.deps.coordinatorOf(this.groupId, fresh));
    address.catch(() => (this.coordinatorAddress = undefined));
    return address.then((broker) => this.deps.pool(consumer).get(broker));
  }

  private async readTopics(): Promise<void> {
    const metadata = await this.consumer!.metadata({ topics: [...this.spec.topics] });
    for (const [name, topic] of metadata.topics)
      this.topicsById.set(topic.id, [name, topic.partitionsCount]);
  }

  /** The broker's assignment, by topic name: the fetcher reads it, the engine seeks and verifies. */
  private async assigned(
    memberId: string,
    owned: { topicId: string; partitions: number[] }[],
  ): Promise<void> {
    if (owned.some((t) => !this.topicsById.has(t.topicId))) {
      this.consumer!.clearMetadata();
      await this.readTopics().catch((error: unknown) => this.crash(error));
    }
    if (this.deps.owner.stopRequested) return;
    const assignment = new Map<string, readonly number[]>();
    let all = this.spec.topics.length > 0;
    for (const { topicId, partitions } of owned) {
      const [topic, count] = this.topicsById.get(topicId) ?? [];
      if (topic)
        assignment.set(
          topic,
          [...partitions].sort((a, b) => a - b),
        );
      if (!topic || partitions.length < (count ?? 0)) all = false;
    }
    if (assignment.size < this.spec.topics.length) all = false;
    const any = owned.some((t) => t.partitions.length > 0);
    if (any) this.leader ??= all;
    // The fetcher forgets every position first: the engine seeks each assigned partition now.
    this.fetcher?.assign(assignment);
    this.spec.listener.joined(memberId, assignment, this.leader ?? false);
  }

  private crash(error: unknown): void {
    // A broker that lists KIP-848 but has it disabled: every group would fail alike.
    const unsupported =
      error instanceof Error && hasProtocolError(error, 'UNSUPPORTED_VERSION')
        ? new BroadcastStartupError(
            'kafka.groupProtocol',
            BroadcastMessages.groupProtocolUnsupported(this.deps.brokers),
          )
        : undefined;
    this.deps.owner.crashed(unsupported ?? error, () => {
      this.fetcher?.stop();
      this.heartbeat?.stop();
    });
  }
}
