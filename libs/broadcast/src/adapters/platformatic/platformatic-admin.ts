import type { Admin } from '@platformatic/kafka';
import type { LiveGroupMember } from '../../interfaces/broadcast-roster.interface.js';
import type {
  DeleteGroupOutcome,
  GroupDescription,
  KafkaAdminPort,
  OffsetBounds,
  TopicOffsets,
} from '../../interfaces/kafka-port.interface.js';
import { hasProtocolError, type PlatformaticErrors } from './platformatic-errors.js';
import {
  type BrokerApi,
  describeConsumerGroup,
  listsConsumerGroupApis,
  listsConsumerGroupApisIn,
} from './platformatic-consumer-group-describe.js';
import { deleteGroupRetrying } from '../shared/group-delete.js';
import { deleteGroupAtCoordinator } from './platformatic-group-delete.js';
import type { UntilReachable } from '../shared/until-reachable.js';
import { type BrokerAddress, PlatformaticCoordinators } from './platformatic-coordinators.js';
import { PlatformaticKnownLeaders } from './platformatic-known-leaders.js';
import { PlatformaticOffsets } from './platformatic-offsets.js';
import { occupiedPoolGroups, PoolGroupsSeen, poolMembers } from './platformatic-roster-members.js';
import { PlatformaticTopicSetup } from './platformatic-topic-setup.js';
import type { TopicSettings } from '../shared/adapter-types.js';
import { brokerState } from './platformatic-group-state.js';

/** The group protocol the adapter's groups use, once 'auto' was resolved. */
export type ResolvedGroupProtocol = 'classic' | 'consumer';

/** Admin operations the engine needs, over one @platformatic/kafka Admin (it connects lazily). */
export class PlatformaticAdmin implements KafkaAdminPort {
  private readonly topics: PlatformaticTopicSetup;
  /** Found once per group, shared by the describes and the KIP-848 heartbeats. */
  private readonly coordinators: PlatformaticCoordinators;
  private readonly offsets: PlatformaticOffsets;
  /** Reads sent with the metadata at hand (the client's calls refresh it every time). */
  private readonly known: PlatformaticKnownLeaders;
  /** The KIP-848 pool groups of the latest look, described again during the next listing. */
  private readonly seen = new PoolGroupsSeen();
  /** The broker's APIs, from the connection probe's ApiVersions answer. */
  private apis: readonly BrokerApi[] | undefined;
  private probed = false;
  private listed: Promise<boolean> | undefined;
  private offered: Promise<boolean> | undefined;
  /** Set once a group of ours uses KIP-848: its describes go to ConsumerGroupDescribe first. */
  private consumerFirst = false;

  constructor(
    private readonly admin: Admin,
    topicSettings: TopicSettings,
    private readonly errors: PlatformaticErrors,
    /** The start's first call, retried while the brokers are unreachable. */
    private readonly reachable: UntilReachable,
    /**
     * One connection that the client does not retry (platformatic-connection-probe.ts); its
     * ApiVersions answer, when it gives one, saves listsConsumerProtocol() its own request.
     */
    private readonly probe: () => Promise<readonly BrokerApi[] | void> = () => Promise.resolve(),
  ) {
    this.topics = new PlatformaticTopicSetup(admin, topicSettings, errors);
    this.coordinators = new PlatformaticCoordinators(admin);
    this.known = new PlatformaticKnownLeaders(admin, () => this.apis);
    this.offsets = new PlatformaticOffsets(admin, errors, this.known);
  }

  /**
   * Whether ApiVersions lists the KIP-848 APIs (ConsumerGroupHeartbeat v1, ConsumerGroupDescribe).
   * Not enough on its own: a broker started with group.coordinator.rebalance.protocols=classic
   * (Apache Kafka 4.4) still lists them and answers UNSUPPORTED_VERSION. Asked once.
   */
  listsConsumerProtocol(): Promise<boolean> {
    this.listed ??= listsConsumerGroupApis(this.admin);
    this.listed.catch(() => (this.listed = undefined));
    return this.listed;
  }

  /**
   * Whether the broker speaks the KIP-848 consumer protocol: ApiVersions lists it and a
   * ConsumerGroupDescribe of `groupId` (one of ours, so its ACLs allow it; no side effect) is not
   * refused with UNSUPPORTED_VERSION, as the broker refuses every KIP-848 request when the
   * protocol is disabled. Asked once.
   */
  offersConsumerProtocol(groupId: string): Promise<boolean> {
    this.offered ??= (async () => {
      if (!(await this.listsConsumerProtocol())) return false;
      try {
        await describeConsumerGroup(this.admin, groupId, this.coordinators);
        return true;
      } catch (error) {
        if (hasProtocolError(error, 'UNSUPPORTED_VERSION')) return false;
        throw error;
      }
    })();
    this.offered.catch(() => (this.offered = undefined));
    return this.offered;
  }

  /** The broker's APIs from the connection probe's ApiVersions answer, once it gave one. */
  brokerApis(): readonly BrokerApi[] | undefined {
    return this.apis;
  }

  /** Noted by the adapter when its groups use KIP-848 (see describeGroup). */
  useConsumerProtocol(): void {
    this.consumerFirst = true;
  }

  /**
   * The group's coordinator (FindCoordinator), for the KIP-848 heartbeats: the one the describes
   * found, unless `fresh` (it moved).
   */
  coordinatorOf(groupId: string, fresh = false): Promise<BrokerAddress> {
    return this.coordinators.of(groupId, fresh);
  }

  ensureTopics(topics: readonly string[], signal?: AbortSignal): Promise<void> {
    // The first call of every startup: an unreachable broker is retried until startupTimeoutMs,
    // a refused login, certificate or ACL is reported at once.
    return this.reachable.run(
      async () => {
        if (!this.probed) {
          const apis = await this.probe();
          if (apis) {
            this.apis = apis;
            this.listed ??= Promise.resolve(listsConsumerGroupApisIn(apis));
          }
        }
        this.probed = true;
        await this.topics.ensure(topics, signal);
      },
      {
        operation: 'describe topics',
        acl: { topic: 'DESCRIBE (implied by READ or WRITE)' },
        topics,
      },
      signal,
    );
  }

  deleteGroup(
    groupId: string,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<DeleteGroupOutcome> {
    return deleteGroupRetrying(
      () =>
        deleteGroupAtCoordinator(this.admin, this.coordinators, this.apis, groupId) ??
        this.admin.deleteGroups({ groups: [groupId] }),
      this.errors,
      groupId,
      deadline,
      signal,
    );
  }

  /**
   * Members of a group of either protocol. DescribeGroups does not see KIP-848 groups (it answers
   * 'Dead', no members) and ConsumerGroupDescribe does not see classic ones (GROUP_ID_NOT_FOUND):
   * the one our groups use is asked first, the other when the first finds no such group.
   */
  async describeGroup(groupId: string): Promise<GroupDescription> {
    if (this.consumerFirst) {
      const described = await describeConsumerGroup(this.admin, groupId, this.coordinators);
      if (described.kind === 'consumer')
        return {
          state: brokerState(described.state),
          memberIds: described.members.map((m) => m.memberId),
        };
      return this.describeClassicGroup(groupId);
    }
    const classic = await this.describeClassicGroup(groupId);
    if (classic.state !== 'Dead' || !(await this.listsConsumerProtocol().catch(() => false)))
      return classic;
    const described = await describeConsumerGroup(this.admin, groupId, this.coordinators).catch(
      (error: unknown) => {
        if (hasProtocolError(error, 'UNSUPPORTED_VERSION')) return undefined;
        throw error;
      },
    );
    if (described?.kind !== 'consumer') return classic;
    return {
      state: brokerState(described.state),
      memberIds: described.members.map((m) => m.memberId),
    };
  }

  private async describeClassicGroup(groupId: string): Promise<GroupDescription> {
    const group = (await this.admin.describeGroups({ groups: [groupId] })).get(groupId);
    return {
      // The broker's own spelling ('Stable', 'Empty', 'Dead'), as kafkajs reports it.
      state: brokerState(group?.state ?? 'DEAD'),
      memberIds: [...(group?.members.keys() ?? [])],
    };
  }

  latestOffsets(topics: readonly string[]): Promise<TopicOffsets> {
    return this.offsets.latest(topics);
  }

  offsetBounds(topic: string): Promise<Map<number, OffsetBounds>> {
    return this.offsets.bounds(topic);
  }

  logStartOffsets(topic: string): Promise<Map<number, string>> {
    return this.offsets.logStart(topic);
  }

  offsetsForTimestamp(topic: string, timestamp: number): Promise<Map<number, string>> {
    return this.offsets.forTimestamp(topic, timestamp);
  }

  async liveMembers(groupPrefix: string): Promise<LiveGroupMember[]> {
    const kip848 = await this.listsConsumerProtocol().catch(() => false);
    return poolMembers(this.admin, groupPrefix, kip848, this.coordinators, this.known, this.seen);
  }

  async occupiedGroups(groupPrefix: string): Promise<string[]> {
    const kip848 = await this.listsConsumerProtocol().catch(() => false);
    return occupiedPoolGroups(this.admin, groupPrefix, kip848, this.known);
  }

  async disconnect(): Promise<void> {
    await this.admin.close();
  }
}
