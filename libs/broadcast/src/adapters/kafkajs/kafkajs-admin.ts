import type { Admin, Kafka } from 'kafkajs';
import type { LiveGroupMember } from '../../interfaces/broadcast-roster.interface.js';
import { listLiveMembers, listOccupiedGroups } from './kafkajs-roster-members.js';
import {
  adminWithCluster,
  readHighWatermarks,
  type AdminWithCluster,
} from './kafkajs-cluster-offsets.js';
import { isBrokenConnection } from './kafkajs-error-chain.js';
import { KafkajsGroupCoordinators } from './kafkajs-group-coordinators.js';
import type { KafkajsErrors } from './kafkajs-errors.js';
import { cutRequests, notRetriable } from './kafkajs-own-cluster.js';
import { KafkajsTopicSetup } from './kafkajs-topic-setup.js';
import type { TopicSettings } from '../shared/adapter-types.js';
import { deleteGroupRetrying } from '../shared/group-delete.js';
import { latestOffsetsRetrying } from '../shared/latest-offsets.js';
import { clientClosedError } from '../shared/port-closure.js';
import type { UntilReachable } from '../shared/until-reachable.js';
import type {
  DeleteGroupOutcome,
  GroupDescription,
  KafkaAdminPort,
  OffsetBounds,
  TopicOffsets,
} from '../../interfaces/kafka-port.interface.js';

/** Admin operations the engine needs, over one lazily connected kafkajs admin. */
export class KafkajsAdmin implements KafkaAdminPort {
  private connecting: Promise<Admin> | undefined;
  /** The admin of `connecting`, and its Cluster, as soon as it is made. */
  private made: { admin: Admin; own: unknown } | undefined;
  /** Set by disconnect(), for good: no admin connects after it (see withAdmin). */
  private closed = false;
  /** Per admin: its kafkajs Cluster, when available (see kafkajs-cluster-offsets.ts). */
  private readonly extras = new WeakMap<Admin, Omit<AdminWithCluster, 'admin'>>();
  /** Creates missing topics and waits for their leaders. */
  private readonly topics: KafkajsTopicSetup;
  /** Deletes and describes, each at the group's coordinator as found once and kept. */
  private readonly groups = new KafkajsGroupCoordinators();

  constructor(
    private readonly kafka: Kafka,
    topicSettings: TopicSettings,
    private readonly errors: KafkajsErrors,
    /** The start's first call, retried while the brokers are unreachable. */
    private readonly reachable: UntilReachable,
    /** How old the metadata a group listing takes its brokers from may be (listGroupsOnKnownBrokers). */
    private readonly metadataMaxAgeMs: number,
  ) {
    this.topics = new KafkajsTopicSetup(topicSettings, errors);
  }

  async ensureTopics(topics: readonly string[], signal?: AbortSignal): Promise<void> {
    // The first call of every startup: an unreachable broker is retried until startupTimeoutMs,
    // a refused login, certificate or ACL is reported at once (see kafkajs-errors.ts).
    return this.reachable.run(
      () => this.createMissingTopics(topics, signal),
      {
        operation: 'describe topics',
        acl: { topic: 'DESCRIBE (implied by READ or WRITE)' },
        topics,
      },
      signal,
    );
  }

  private createMissingTopics(topics: readonly string[], signal?: AbortSignal): Promise<void> {
    return this.withAdmin(async (admin) => {
      if (signal?.aborted) return;
      await this.topics.ensure(admin, this.extras.get(admin)?.cluster, topics, signal, (call) =>
        this.afterLastUse(admin, call),
      );
    });
  }

  deleteGroup(
    groupId: string,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<DeleteGroupOutcome> {
    // At the coordinator the describes use too (kafkajs-group-coordinators.ts): kafkajs's own
    // call reads the metadata and looks the coordinator up before every DeleteGroups.
    return deleteGroupRetrying(
      () =>
        this.withAdmin((admin) => this.groups.delete(admin, this.extras.get(admin)?.own, groupId)),
      this.errors,
      groupId,
      deadline,
      signal,
    );
  }

  async describeGroup(groupId: string): Promise<GroupDescription> {
    const groups = await this.withAdmin((admin) =>
      this.groups.describe(admin, this.extras.get(admin)?.own, [groupId]),
    );
    const group = groups.find((g) => g.groupId === groupId);
    return {
      state: group?.state ?? 'Dead',
      memberIds: group?.members.map((m) => m.memberId) ?? [],
    };
  }

  latestOffsets(topics: readonly string[]): Promise<TopicOffsets> {
    // A retry uses a fresh client (withAdmin drops one whose connections broke).
    return latestOffsetsRetrying(
      (attempt) => this.withAdmin((admin) => this.highWatermarks(admin, topics, attempt > 0)),
      this.errors,
      topics,
    );
  }

  private async highWatermarks(
    admin: Admin,
    topics: readonly string[],
    retrying: boolean,
  ): Promise<TopicOffsets> {
    const cluster = this.extras.get(admin)?.cluster;
    if (cluster) return readHighWatermarks(cluster, topics, retrying);
    const entries = await Promise.all(
      topics.map(async (topic) => {
        const partitions = await admin.fetchTopicOffsets(topic);
        return [topic, new Map(partitions.map((p) => [p.partition, p.high]))] as const;
      }),
    );
    return new Map(entries);
  }

  async offsetBounds(topic: string): Promise<Map<number, OffsetBounds>> {
    // Rare (a position out of range), so kafkajs's own per-topic call: Metadata, then the latest
    // and the earliest offsets (ListOffsets -1 and -2).
    const partitions = await this.withAdmin((admin) => admin.fetchTopicOffsets(topic));
    return new Map(partitions.map((p) => [p.partition, { low: p.low, high: p.high }]));
  }

  /**
   * Through the admin's Cluster, with the metadata the start's topic check read: one ListOffsets,
   * where offsetBounds sends a Metadata and two.
   */
  async logStartOffsets(topic: string): Promise<Map<number, string>> {
    return this.withAdmin(async (admin) => {
      const cluster = this.extras.get(admin)?.cluster;
      if (cluster) {
        const lows = await readHighWatermarks(cluster, [topic], false, true);
        return lows.get(topic) ?? new Map<number, string>();
      }
      const partitions = await admin.fetchTopicOffsets(topic);
      return new Map(partitions.map((p) => [p.partition, p.low]));
    });
  }

  async offsetsForTimestamp(topic: string, timestamp: number): Promise<Map<number, string>> {
    const offsets = await this.withAdmin((admin) =>
      admin.fetchTopicOffsetsByTimestamp(topic, timestamp),
    );
    return new Map(offsets.map((o) => [o.partition, o.offset]));
  }

  async liveMembers(groupPrefix: string): Promise<LiveGroupMember[]> {
    return this.withAdmin((admin) => {
      const extras = this.extras.get(admin);
      return listLiveMembers(
        admin,
        groupPrefix,
        extras?.cluster,
        this.metadataMaxAgeMs,
        this.groups,
        extras?.own,
      );
    });
  }

  async occupiedGroups(groupPrefix: string): Promise<string[]> {
    return this.withAdmin((admin) =>
      listOccupiedGroups(
        admin,
        groupPrefix,
        this.extras.get(admin)?.cluster,
        this.metadataMaxAgeMs,
      ),
    );
  }

  /**
   * Disconnects for good: later calls are refused instead of connecting a new client, and the
   * requests still in flight are cut (kafkajs's disconnect waits for them, up to the request
   * timeout against a broker that stopped answering).
   */
  async disconnect(): Promise<void> {
    this.closed = true;
    const connecting = this.connecting;
    this.connecting = undefined;
    const made = this.made;
    if (!made) return;
    // Its connect too may wait for a broker that does not answer.
    cutRequests(made.own, notRetriable(clientClosedError()));
    await connecting?.catch(() => undefined);
    await made.admin.disconnect();
  }

  private admin(): Promise<Admin> {
    if (this.closed) return Promise.reject(clientClosedError());
    if (!this.connecting) {
      const { admin, cluster, own } = adminWithCluster(this.kafka);
      this.extras.set(admin, { cluster, own });
      this.made = { admin, own };
      const connecting = admin.connect().then(() => admin);
      this.connecting = connecting;
      // A failed connect must not poison later calls, nor leave the half-made client behind.
      connecting.catch(() => {
        this.discard(connecting);
        return admin.disconnect().catch(() => undefined);
      });
    }
    return this.connecting;
  }

  /**
   * Runs `use` on the shared admin. When its connections broke, kafkajs can keep a broker it never
   * connected in its pool and answer "Broker not connected" to every later call: the client is
   * then dropped, and the next call connects a new one.
   *
   * kafkajs reconnects a disconnected admin's brokers on its next request: a call that got its
   * admin before disconnect() is refused if it has not begun, and disconnects the admin again
   * once it ends if it was under way, so that no socket outlives disconnect().
   */
  private async withAdmin<T>(use: (admin: Admin) => Promise<T>): Promise<T> {
    const connecting = this.admin();
    let admin: Admin | undefined;
    try {
      admin = await connecting;
      if (this.closed) throw clientClosedError();
      return await use(admin);
    } catch (error) {
      if (isBrokenConnection(error) && this.discard(connecting))
        void connecting.then((admin) => admin.disconnect()).catch(() => undefined);
      throw error;
    } finally {
      if (this.closed) await admin?.disconnect().catch(() => undefined);
    }
  }

  /**
   * A kafkajs call its caller stopped waiting for (it cannot be cancelled) still uses `admin`:
   * if disconnect() came meanwhile, the call may have reconnected it, so disconnect it again.
   */
  private afterLastUse(admin: Admin, call: Promise<unknown>): void {
    void call
      .catch(() => undefined)
      .then(() => (this.closed ? admin.disconnect() : undefined))
      .catch(() => undefined);
  }

  /** Forgets `connecting` if it is still the shared client; true when it was. */
  private discard(connecting: Promise<Admin>): boolean {
    if (this.connecting !== connecting) return false;
    this.connecting = undefined;
    return true;
  }
}
