import type { Consumer, ConsumerGroupJoinPayload } from '@platformatic/kafka';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type { GroupConsumerSpec } from '../../interfaces/kafka-port.interface.js';
import { withTimeout } from '../../shared/async.utils.js';
import { rebalanceTimeoutMs, type ConsumerTimings } from '../shared/adapter-types.js';
import type { ConsumerOwner, GroupConsumerClient } from '../shared/group-consumer-lifecycle.js';
import type { PlatformaticErrors } from './platformatic-errors.js';
import { PlatformaticFetcher } from './platformatic-fetcher.js';
import { withPauses } from './platformatic-paused-fetches.js';
import { HeartbeatWatch } from './platformatic-heartbeat-watch.js';

/**
 * kafkajs's round-robin protocol, name and version: the broker lets only members with a protocol
 * in common share a group, so a kafkajs and a @platformatic/kafka instance can meet in one group
 * (a fleet moving from one client to the other) and see each other. This client's leader assigns
 * round-robin whatever the name, and both encode subscriptions and assignments the same way.
 */
const PROTOCOL = { name: 'RoundRobinAssigner', version: 0 };
/** How long stop() lets a join in flight finish, so that its member can leave at once. */
const JOIN_SETTLE_MS = 10_000;

/** What one @platformatic/kafka group consumer is made with (classic or KIP-848). */
export interface PlatformaticConsumerDeps {
  /** A new client of the group (with the engine's timings, committing nothing). */
  make: () => Consumer;
  timings: ConsumerTimings;
  logger: BroadcastLogger;
  errors: PlatformaticErrors;
  /** Its lifecycle (adapters/shared/group-consumer-lifecycle.ts), which decides start and stop. */
  owner: ConsumerOwner;
}

/**
 * One @platformatic/kafka consumer in one group (classic protocol), the steps its lifecycle runs:
 * the only place that knows its events.
 */
export class PlatformaticGroupConsumer implements GroupConsumerClient {
  readonly groupId: string;
  readonly errors: PlatformaticErrors;
  private consumer: Consumer | undefined;
  private fetcher: PlatformaticFetcher | undefined;
  private fetching: Promise<void> | undefined;
  private joining: Promise<unknown> | undefined;
  private joinOptions: Parameters<Consumer['joinGroup']>[0] | undefined;
  private isLeader = false;
  private readonly timings: ConsumerTimings;
  private readonly logger: BroadcastLogger;
  private readonly owner: ConsumerOwner;
  private readonly heartbeats: HeartbeatWatch;
  private unfollow: () => void = () => undefined;

  constructor(
    private readonly spec: GroupConsumerSpec,
    private readonly deps: PlatformaticConsumerDeps,
  ) {
    this.groupId = spec.groupId;
    this.timings = deps.timings;
    this.logger = deps.logger;
    this.owner = deps.owner;
    this.errors = deps.errors;
    this.heartbeats = new HeartbeatWatch(spec.groupId, this.timings.heartbeatIntervalMs, (error) =>
      this.crash(error),
    );
  }

  /**
   * Connects: a Metadata request surfaces a refused login or an unreachable broker here, as
   * kafkajs's connect() does. The join runs in the background (run): the start does not wait for
   * the group, the join event hands the assignment over.
   */
  async connect(): Promise<void> {
    const consumer = (this.consumer = this.deps.make());
    this.listen(consumer);
    await consumer.metadata({ topics: [...this.spec.topics] });
  }

  subscribe(): void {
    this.consumer!.topics.trackAll(...this.spec.topics);
  }

  run(): void {
    const consumer = this.consumer!;
    const fetcher = (this.fetcher = new PlatformaticFetcher(
      withPauses(consumer, this.spec.pauses),
      this.spec,
      this.timings.maxWaitTimeMs,
      () => this.rebalanceForNewPartitions(),
    ));
    this.fetching = fetcher.run().catch((error: unknown) => this.crash(error));
    const { sessionTimeoutMs, heartbeatIntervalMs } = this.timings;
    this.joinOptions = {
      sessionTimeout: sessionTimeoutMs,
      rebalanceTimeout: rebalanceTimeoutMs(this.timings),
      heartbeatInterval: heartbeatIntervalMs,
      // The instance's description as the member's user data, for the roster (describeGroups).
      protocols: [{ ...PROTOCOL, metadata: this.spec.userData ?? '' }],
    };
    this.joining = consumer
      .joinGroup(this.joinOptions)
      .catch((error: unknown) => this.crash(error));
  }

  /**
   * Partitions were added to a subscribed topic. The client's classic consumer never rebalances
   * for that by itself (it rejoins only when a heartbeat or a group call fails), so the new
   * partitions would never be assigned. The leader joins again: a JoinGroup from the leader of a
   * stable group starts a rebalance, whose assignment (made from the refreshed metadata) includes
   * them; the other members follow when their heartbeat sees REBALANCE_IN_PROGRESS.
   */
  private rebalanceForNewPartitions(): void {
    const consumer = this.consumer;
    if (!consumer || !this.joinOptions || !this.isLeader || this.owner.stopRequested) return;
    this.logger.debug?.(`Partitions were added to a topic of ${this.groupId}: rebalancing`, {
      group: this.groupId,
    });
    this.joining = consumer
      .joinGroup(this.joinOptions)
      .catch((error: unknown) => this.crash(error));
  }

  seek(topic: string, partition: number, offset: string): void {
    this.fetcher?.seek(topic, partition, offset);
  }

  interrupt(): void {
    this.heartbeats.cancel();
    this.unfollow();
  }

  async close(): Promise<void> {
    const consumer = this.consumer;
    if (!consumer) return;
    this.fetcher?.stop();
    await this.fetching;
    // A member whose join is still in flight gets its id only when the join ends; leaving
    // before would leave it in the group until its session expires.
    if (this.joining)
      await withTimeout(this.joining, JOIN_SETTLE_MS, 'join').catch(() => undefined);
    // Errors are ignored: closing ends the membership anyway (the broker expires it).
    await new Promise<void>((resolve) => consumer.leaveGroup(true, () => resolve()));
    await consumer.close(true);
    this.unfollow();
  }

  /** Closing the client fails what it has in flight (a fetch, a join) and closes its sockets. */
  async cut(): Promise<void> {
    this.fetcher?.stop();
    this.unfollow();
    await this.consumer?.close(true);
  }

  private listen(consumer: Consumer): void {
    const { listener } = this.spec;
    consumer.on('consumer:group:join', (payload: ConsumerGroupJoinPayload) => {
      if (this.owner.stopRequested) return;
      this.isLeader = payload.isLeader ?? false;
      const assignment = new Map<string, readonly number[]>(
        (payload.assignments ?? []).map((a) => [a.topic, a.partitions]),
      );
      // The fetcher forgets every position first: the engine seeks each assigned partition now.
      this.fetcher?.assign(assignment);
      listener.joined(payload.memberId, assignment, payload.isLeader ?? false);
    });
    // A rejoin that failed past the client's retries: the engine decides how to recover.
    consumer.on('error', (error: Error) => this.crash(error));
    // The classic consumer may stop heartbeating after a failed heartbeat: see HeartbeatWatch.
    this.unfollow = this.heartbeats.follow(consumer);
    consumer.on('consumer:heartbeat:start', () => this.heartbeats.began());
    consumer.on('consumer:heartbeat:error', (payload: { error?: unknown }) => {
      if (!this.owner.stopRequested) this.heartbeats.failed(payload.error);
    });
  }

  private crash(error: unknown): void {
    this.owner.crashed(error, () => {
      this.heartbeats.cancel();
      this.unfollow();
      this.fetcher?.stop();
    });
  }
}
