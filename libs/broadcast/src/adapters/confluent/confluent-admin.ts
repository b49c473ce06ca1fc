import type { LiveGroupMember } from '../../interfaces/broadcast-roster.interface.js';
import type {
  DeleteGroupOutcome,
  GroupDescription,
  KafkaAdminPort,
  OffsetBounds,
  TopicOffsets,
} from '../../interfaces/kafka-port.interface.js';
import { pause } from '../../shared/async.utils.js';
import type { TopicSettings } from '../shared/adapter-types.js';
import { deleteGroupRetrying } from '../shared/group-delete.js';
import { latestOffsetsRetrying } from '../shared/latest-offsets.js';
import type { UntilReachable } from '../shared/until-reachable.js';
import { RD, rdCode, type ConfluentErrors } from './confluent-errors.js';
import {
  answer,
  OffsetSpec,
  type GroupDescription as RdGroupDescription,
  type IAdminClient,
  type TopicDescription,
} from './confluent-library.js';
import type { ConfluentDescribeHelper } from './confluent-describe-helper.js';
import type { AdminTokenGate } from './confluent-admin-token-gate.js';
import { rosterMembers } from './confluent-member-client-id.js';

/** librdkafka's ConsumerGroupStates, in the broker's spelling (as kafkajs passes them on). */
const STATES = ['Unknown', 'PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead', 'Empty'];
const POOL_GROUP = /-\d+$/;
/** ConsumerGroupTypes.CONSUMER: a KIP-848 group. */
const KIP848_GROUP = 1;

/** A consumer's own member, found by its client id, and the members of its group then. */
export interface OwnMember {
  memberId: string;
  memberIds: string[];
}

/** The state name of librdkafka's numeric group state. */
export function stateName(state: number): string {
  return STATES[state] ?? 'Unknown';
}

/** Admin operations the engine needs, over one librdkafka AdminClient. */
export class ConfluentAdmin implements KafkaAdminPort {
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(
    private readonly admin: IAdminClient,
    private readonly settings: TopicSettings,
    private readonly errors: ConfluentErrors,
    /** The start's first call, retried while the brokers are unreachable. */
    private readonly reachable: UntilReachable,
    /** Each admin request's own timeout. */
    private readonly timeoutMs: number,
    /**
     * DescribeGroups and DeleteGroups, in a child process: a failed describe crashes the binding
     * (#531), a coordinator request timed out in an outage aborts librdkafka (#4605).
     */
    private readonly describer: ConfluentDescribeHelper,
    /**
     * SASL/OAUTHBEARER only: what the requests pass, so that no token is handed to the client
     * while one waits (the binding would block the event loop until it ends).
     */
    private readonly gate?: AdminTokenGate,
  ) {}

  ensureTopics(topics: readonly string[], signal?: AbortSignal): Promise<void> {
    // The start's first call: the helper process boots meanwhile (its first request, the start's
    // DeleteGroups, would otherwise wait for a whole process start).
    this.describer.warm();
    return this.reachable.run(
      () => this.ensure(topics, signal),
      {
        operation: 'describe topics',
        acl: { topic: 'DESCRIBE (implied by READ or WRITE)' },
        topics,
      },
      signal,
    );
  }

  /** Creates the missing topics, then waits until every partition has a leader. */
  private async ensure(topics: readonly string[], signal?: AbortSignal): Promise<void> {
    const missing = (await this.describe(topics)).filter(
      (t) => rdCode(t.error) === RD.UNKNOWN_TOPIC_OR_PART,
    );
    for (const t of missing) {
      const created = this.call<void>((cb) =>
        this.admin.createTopic(
          {
            topic: t.name,
            num_partitions: this.settings.numPartitions,
            replication_factor: this.settings.replicationFactor ?? -1,
          },
          this.timeoutMs,
          cb,
        ),
      );
      await created.catch((error: unknown) => {
        // Another instance made it first.
        if (rdCode(error) === RD.TOPIC_ALREADY_EXISTS) return;
        // A refused create names CREATE, not the DESCRIBE of the start's first call.
        throw (
          this.errors.fatal(error, {
            operation: 'create missing topics',
            acl: { topic: 'CREATE', cluster: 'CREATE' },
            topics: [t.name],
          }) ?? error
        );
      });
    }
    for (let n = 0; ; n++) {
      const described = await this.describe(topics);
      const waiting = described.some(
        (t) => t.error || t.partitions.length === 0 || t.partitions.some((p) => !p.leader),
      );
      if (!waiting) return;
      const failed = described.find((t) => t.error && rdCode(t.error) !== RD.UNKNOWN_TOPIC_OR_PART);
      if (failed?.error) throw failed.error;
      await pause(Math.min(50 * 2 ** n, 500), signal);
    }
  }

  private describe(topics: readonly string[]): Promise<TopicDescription[]> {
    return this.call<TopicDescription[]>((cb) =>
      this.admin.describeTopics([...topics], { timeout: this.timeoutMs }, cb),
    );
  }

  deleteGroup(
    groupId: string,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<DeleteGroupOutcome> {
    return deleteGroupRetrying(
      async () => {
        // In the helper process, never in this one: a DeleteGroups that timed out while no broker
        // answered (an outage) made librdkafka abort this process once the coordinator was back
        // (rd_kafka_admin_coord_request / rd_kafka_enq_once_del_source_return, see
        // confluent-describe-helper.ts); in the helper it ends the helper, a retriable error.
        if (this.closed) throw new Error('the admin client is closed');
        const [result] = await this.describer.deleteGroups([groupId]);
        if (result?.error) throw result.error;
      },
      this.errors,
      groupId,
      deadline,
      signal,
    );
  }

  async describeGroup(groupId: string): Promise<GroupDescription> {
    const [group] = await this.describeGroups([groupId]);
    if (!group || rdCode(group.error) === RD.GROUP_ID_NOT_FOUND)
      return { state: 'Dead', memberIds: [] };
    if (group.error) throw group.error;
    return { state: stateName(group.state), memberIds: group.members.map((m) => m.memberId) };
  }

  /**
   * Never in this process: the binding segfaults on a group whose describe failed (upstream
   * #531); the helper process rejects instead (confluent-describe-helper.ts).
   */
  describeGroups(groupIds: readonly string[]): Promise<RdGroupDescription[]> {
    if (this.closed) return Promise.reject(new Error('the admin client is closed'));
    if (groupIds.length === 0) return Promise.resolve([]);
    return this.describer.describeGroups(groupIds);
  }

  latestOffsets(topics: readonly string[]): Promise<TopicOffsets> {
    return latestOffsetsRetrying(
      async () => {
        const offsets: TopicOffsets = new Map();
        for (const topic of topics) {
          const latest = await this.listOffsets(topic, OffsetSpec.LATEST);
          offsets.set(topic, new Map([...latest].map(([p, o]) => [p, String(o)])));
        }
        return offsets;
      },
      this.errors,
      topics,
    );
  }

  async offsetBounds(topic: string): Promise<Map<number, OffsetBounds>> {
    const [low, high] = await Promise.all([
      this.listOffsets(topic, OffsetSpec.EARLIEST),
      this.listOffsets(topic, OffsetSpec.LATEST),
    ]);
    return new Map(
      [...high].map(([p, h]) => [p, { low: String(low.get(p) ?? 0), high: String(h) }]),
    );
  }

  async offsetsForTimestamp(topic: string, timestamp: number): Promise<Map<number, string>> {
    const [at, high] = await Promise.all([
      this.listOffsets(topic, new OffsetSpec(timestamp)),
      this.listOffsets(topic, OffsetSpec.LATEST),
    ]);
    // No record at or after the timestamp: the high watermark.
    return new Map([...high].map(([p, h]) => [p, String((at.get(p) ?? -1) >= 0 ? at.get(p) : h)]));
  }

  /** Per partition of the topic, the offset the spec names. */
  private async listOffsets(
    topic: string,
    spec: InstanceType<typeof OffsetSpec>,
  ): Promise<Map<number, number>> {
    const [described] = await this.describe([topic]);
    if (described?.error) throw described.error;
    const partitions = (described?.partitions ?? []).map((p) => ({
      topic,
      partition: p.partition,
      offset: spec,
    }));
    const results = await this.call<{ partition: number; offset: number; error?: unknown }[]>(
      (cb) =>
        this.admin.listOffsets(partitions, { timeout: this.timeoutMs, isolationLevel: 0 }, cb),
    );
    const failed = results.find((r) => r.error);
    if (failed) throw failed.error;
    return new Map(results.map((r) => [r.partition, r.offset]));
  }

  /** Consumer groups (either protocol) named `<groupPrefix>…`, from one listing. */
  private async poolGroups(groupPrefix: string) {
    const { groups } = await this.call<{
      groups: { groupId: string; protocolType: string; state: number; type: number }[];
    }>((cb) => this.admin.listGroups({ timeout: this.timeoutMs }, cb));
    return groups.filter(
      (g) =>
        g.groupId.startsWith(groupPrefix) &&
        (g.type === KIP848_GROUP || g.protocolType === 'consumer'),
    );
  }

  async liveMembers(groupPrefix: string): Promise<LiveGroupMember[]> {
    const pool = (await this.poolGroups(groupPrefix)).filter((g) => POOL_GROUP.test(g.groupId));
    const described = await this.describeGroups(pool.map((g) => g.groupId));
    return rosterMembers(described.filter((g) => !g.error));
  }

  async occupiedGroups(groupPrefix: string): Promise<string[]> {
    const pool = await this.poolGroups(groupPrefix);
    return pool
      .filter((g) => !['Empty', 'Dead'].includes(stateName(g.state)))
      .map((g) => g.groupId);
  }

  /** The group's member with this client id (each consumer has its own), and all its members. */
  async memberOf(groupId: string, clientId: string): Promise<OwnMember | undefined> {
    const [group] = await this.describeGroups([groupId]);
    const memberId = group?.members.find((m) => m.clientId === clientId)?.memberId;
    return memberId === undefined
      ? undefined
      : { memberId, memberIds: group!.members.map((m) => m.memberId) };
  }

  /**
   * Disconnects once the requests in flight have answered (each within its own timeout): the
   * binding frees the client at disconnect, and a request that answers afterwards crashed the
   * process (a DescribeGroups held by a fault, test/faults/seams-group.spec.ts). The describe
   * helper is killed at once: what it had pending rejects.
   */
  async disconnect(): Promise<void> {
    this.closed = true;
    await Promise.all([
      this.describer.close(),
      Promise.allSettled(this.inFlight).then(() => this.admin.disconnect()),
    ]);
  }

  /** One request of the client, tracked until it answers; refused once disconnecting. */
  private call<T>(request: (cb: (err: unknown, result: T) => void) => void): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the admin client is closed'));
    const pending = this.gate
      ? this.gate.run(() => answer(request), this.timeoutMs)
      : answer(request);
    this.inFlight.add(pending);
    void pending.then(
      () => this.inFlight.delete(pending),
      () => this.inFlight.delete(pending),
    );
    return pending;
  }
}
