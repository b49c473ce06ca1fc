import type { GroupConsumerSpec } from '../../interfaces/kafka-port.interface.js';
import { deferred } from '../../shared/async.utils.js';
import type { OwnMember } from './confluent-admin.js';
import { RD } from './confluent-errors.js';
import type {
  IncrementalConsumer,
  LibrdKafkaError,
  RdConsumer,
  TopicPartition,
} from './confluent-library.js';
import type { ConfluentMembershipWatch } from './confluent-membership-watch.js';
import type { ConfluentPartitions } from './confluent-partitions.js';

/** What the rebalances of one group consumer act on (ConfluentGroupConsumer). */
export interface RebalanceHost {
  readonly spec: GroupConsumerSpec;
  readonly partitions: ConfluentPartitions;
  /** KIP-848 only: the membership changes no rebalance callback tells. */
  readonly watch: ConfluentMembershipWatch | undefined;
  consumer(): RdConsumer & IncrementalConsumer;
  /** The engine asked for a stop, or the consumer is closing or cut. */
  stopping(): boolean;
  /** This consumer's member, found through the admin (undefined once stopped). */
  findMember(): Promise<OwnMember | undefined>;
  /** Pauses the partitions just assigned of a paused topic. */
  keepPaused(assigned: readonly TopicPartition[]): void;
  seek(topic: string, partition: number, offset: string): void;
  /** An assign was made: the next fetch tells the listener that reading is positioned. */
  assigned(): void;
  crash(error: unknown): void;
}

/**
 * The hand-over of one consumer's rebalances to the engine, in the order librdkafka gave them
 * (and the KIP-848 watch's membership changes in line with them). The engine owns the positions:
 * an assignment is handed to the engine first (`joined`, where it seeks) and only then assigned,
 * each partition at its sought offset. The consumer tells neither its member id nor its member
 * epoch: the id is found through the admin by this consumer's own client id.
 */
export class ConfluentRebalances {
  /** True while `joined` runs: its seeks are applied by the assign that follows. */
  handing = false;
  /** Resolved by the first assignment librdkafka calls back with. */
  readonly firstAssignment = deferred<void>();
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly host: RebalanceHost) {}

  /** Settles once every rebalance called back so far has been handled. */
  settled(): Promise<void> {
    return this.chain;
  }

  /** librdkafka's rebalance callback. */
  onRebalance(err: LibrdKafkaError, assignment: TopicPartition[]): void {
    this.chain = this.chain
      .then(() => this.rebalance(err, assignment))
      .catch((error: unknown) => this.host.crash(error));
  }

  /**
   * A membership change the watch saw (KIP-848), in line with the rebalances: told unless a
   * rebalance told it meanwhile; the engine's seeks of the partitions kept go to the fetcher.
   */
  onMembership(member: OwnMember): void {
    const { host } = this;
    this.chain = this.chain
      .then(() => {
        if (host.stopping() || !host.watch?.isNew(member)) return;
        this.tellJoined(member, host.partitions.assignment());
      })
      .catch((error: unknown) => host.crash(error));
  }

  /**
   * One rebalance: a revoke unassigns at once; an assignment is handed to the engine (its member
   * id found first) and assigned at the engine's seeks. librdkafka waits for the assign, during a
   * stop too (it cannot leave before).
   */
  private async rebalance(err: LibrdKafkaError, assignment: TopicPartition[]): Promise<void> {
    const { host } = this;
    const { partitions } = host;
    const consumer = host.consumer();
    const cooperative = consumer.rebalanceProtocol() === 'COOPERATIVE';
    const assign = (parts: TopicPartition[]): void => {
      if (cooperative) consumer.incrementalAssign(parts);
      else consumer.assign(parts);
      host.keepPaused(parts);
    };
    if (err.code !== RD.ASSIGN_PARTITIONS) {
      // KIP-848: the coordinator fenced this member (or its session ended). librdkafka would
      // join again under the same member id, which the engine could not tell from its own
      // membership: the consumer crashes instead, and the engine decides (a new consumer).
      const lost = cooperative && !host.stopping() && consumer.assignmentLost();
      if (cooperative) partitions.remove(assignment);
      else partitions.clear();
      if (cooperative) consumer.incrementalUnassign(assignment);
      else consumer.unassign();
      if (lost) host.crash(new Error(`the coordinator of ${host.spec.groupId} fenced this member`));
      return;
    }
    this.firstAssignment.resolve();
    const member = host.stopping() ? undefined : await host.findMember();
    if (!cooperative) partitions.clear();
    partitions.add(assignment);
    const full = partitions.assignment();
    if (member === undefined || host.stopping()) {
      assign(assignment);
      return;
    }
    partitions.release();
    this.handing = true;
    try {
      this.tellJoined(member, full);
    } finally {
      this.handing = false;
    }
    host.assigned();
    assign(partitions.withHeldSeeks(assignment));
    // Partitions kept from before (KIP-848's increments): their seeks go to the fetcher now.
    for (const { topic, partition, offset } of partitions.heldOutside(assignment))
      host.seek(topic, partition, String(offset));
  }

  /** A membership change to the engine. No leader is told: the one every member agrees on is
   * the least member id listed. */
  private tellJoined(member: OwnMember, assignment: ReturnType<ConfluentPartitions['assignment']>) {
    this.host.watch?.seen(member);
    const leader = member.memberIds.every((id) => member.memberId <= id);
    this.host.spec.listener.joined(member.memberId, assignment, leader);
  }
}
